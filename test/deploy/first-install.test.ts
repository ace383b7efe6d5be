import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../support/paths.js';
import { runCommand } from '../support/release-package.js';

/**
 * Issue 29, item 7: `npm install` on a fresh clone prints no warning. npm 11 warns about (and will
 * block) every dependency's install script that package.json's `allowScripts` does not cover;
 * `npm install-scripts ls` lists exactly those, from the installed tree and the lockfile.
 */
test('every dependency install script is reviewed in allowScripts, so npm install has nothing to warn about', async () => {
  const listed = await runCommand('npm', ['install-scripts', 'ls'], { cwd: repoRoot });
  assert.is(listed.code, 0, listed.stderr);
  assert.is(listed.stdout.trim(), 'No packages with unreviewed install scripts.');
  assert.is(listed.stderr, '');
});

test.run();
