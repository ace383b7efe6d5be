import { existsSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './paths.js';
import { sourceFiles, type SourceFile } from './sources.js';

/** One import of one file: static, dynamic, re-export or type-only alike. */
export interface Import {
  readonly from: string;
  /** As written. */
  readonly specifier: string;
  /** The imported file (repository path) for a relative specifier; undefined for a package or a built-in. */
  readonly file?: string;
  /** `node:fs` or `fs`. */
  readonly builtin: boolean;
  /** The package name for a bare specifier (`preact` for `preact/hooks`, `vigil` for `vigil/domain`). */
  readonly packageName?: string;
}

const BUILTINS = new Set(builtinModules);

/** Every import of every file under `roots`, read with TypeScript's own pre-processor. */
export function importsOf(files: readonly SourceFile[] = sourceFiles()): Import[] {
  const imports: Import[] = [];
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(file.text, true, true);
    for (const { fileName: specifier } of importedFiles) imports.push(describe(file.path, specifier));
  }
  return imports;
}

function describe(from: string, specifier: string): Import {
  if (specifier.startsWith('.')) return { from, specifier, file: resolveRelative(from, specifier), builtin: false };
  const bare = specifier.replace(/^node:/, '');
  if (specifier.startsWith('node:') || BUILTINS.has(bare.split('/')[0]!)) return { from, specifier, builtin: true };
  const parts = specifier.split('/');
  return { from, specifier, builtin: false, packageName: specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]! };
}

/** The source file a relative specifier names: `.js` for `.ts`/`.tsx`, or no extension (the dashboard's bundler style). */
function resolveRelative(from: string, specifier: string): string {
  const base = normalize(join(dirname(from), specifier));
  const candidates = specifier.endsWith('.js')
    ? [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base]
    : [`${base}.ts`, `${base}.tsx`, base, join(base, 'index.ts'), join(base, 'index.tsx')];
  const found = candidates.find((candidate) => existsSync(join(repoRoot, candidate)) && statSync(join(repoRoot, candidate)).isFile());
  return relative('.', found ?? base);
}

/** The circles of the graph (strongly connected components of more than one file, or a file importing itself). */
export function importCircles(imports: readonly Import[], within: (file: string) => boolean): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const edge of imports) {
    if (!edge.file || !within(edge.from) || !within(edge.file)) continue;
    if (!edges.has(edge.from)) edges.set(edge.from, new Set());
    edges.get(edge.from)!.add(edge.file);
  }
  // Tarjan's algorithm.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) !== indices.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || edges.get(node)?.has(node)) circles.push(component.sort());
  };
  for (const node of edges.keys()) if (!indices.has(node)) visit(node);
  return circles;
}
