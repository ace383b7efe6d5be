import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * The shell commands of a block marked `<!-- BEGIN name ... -->` … `<!-- END name -->` in a page
 * of the manual (`docs/operating.md`, say): the lines of its fenced code, without comments and
 * blank lines. Tests that run the documented install steps read them from here, so the manual and
 * the tests cannot drift apart.
 */
export function docSteps(page: string, name: string): string[] {
  const text = readFileSync(join(repoRoot, page), 'utf8');
  const begin = text.indexOf(`<!-- BEGIN ${name}`);
  const end = text.indexOf(`<!-- END ${name} -->`);
  if (begin < 0 || end < begin) throw new Error(`${page} has no block "${name}" (<!-- BEGIN ${name} ... --> … <!-- END ${name} -->)`);
  const fence = /```sh\n([\s\S]*?)```/.exec(text.slice(begin, end));
  if (!fence) throw new Error(`${page}'s block "${name}" has no \`\`\`sh code`);
  return fence[1]!.split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Splits a command line into words (the documented steps use no quotes, so none are handled). */
export function wordsOf(command: string): string[] {
  if (/['"\\$`;&|<>]/.test(command)) throw new Error(`a documented step needs a shell to run, which the tests do not use: ${command}`);
  return command.split(/\s+/).filter(Boolean);
}
