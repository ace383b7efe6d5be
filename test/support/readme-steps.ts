import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * The shell commands of a README block marked `<!-- BEGIN name ... -->` … `<!-- END name -->`:
 * the lines of its fenced code, without comments and blank lines. Tests that run the README's
 * install steps read them from here, so the README and the tests cannot drift apart.
 */
export function readmeSteps(name: string): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const begin = readme.indexOf(`<!-- BEGIN ${name}`);
  const end = readme.indexOf(`<!-- END ${name} -->`);
  if (begin < 0 || end < begin) throw new Error(`README.md has no block "${name}" (<!-- BEGIN ${name} ... --> … <!-- END ${name} -->)`);
  const fence = /```sh\n([\s\S]*?)```/.exec(readme.slice(begin, end));
  if (!fence) throw new Error(`README.md's block "${name}" has no \`\`\`sh code`);
  return fence[1]!.split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Splits a command line into words (the README's steps use no quotes, so none are handled). */
export function wordsOf(command: string): string[] {
  if (/['"\\$`;&|<>]/.test(command)) throw new Error(`a README step needs a shell to run, which the tests do not use: ${command}`);
  return command.split(/\s+/).filter(Boolean);
}
