import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './paths.js';

/** A source file of the daemon (TypeScript, the dashboard's TSX too), by its path from the repository root. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** The folders whose code ships: the command, the kernel and its kits, the config loader, the plugins (dashboard included). */
export const SOURCE_ROOTS = ['bin', 'core', 'config', 'plugins'] as const;

/** Every `.ts`/`.tsx` file under `roots`, declaration files left out, sorted by path. */
export function sourceFiles(roots: readonly string[] = SOURCE_ROOTS): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push({ path: relative(repoRoot, path), text: readFileSync(path, 'utf8') });
    }
  };
  for (const root of roots) walk(join(repoRoot, root));
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** Where `pattern` (global) matches, as `path:line`, over `files`. */
export function occurrences(files: readonly SourceFile[], pattern: RegExp): string[] {
  const found: string[] = [];
  for (const file of files) {
    for (const match of file.text.matchAll(pattern)) found.push(`${file.path}:${file.text.slice(0, match.index).split('\n').length}`);
  }
  return found;
}
