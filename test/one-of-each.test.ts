import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_CODES } from '../core/errors.js';
import { occurrences, sourceFiles } from './support/sources.js';

/**
 * Issue 30, item 5: one of each small helper, and every error code in one file. A helper written
 * twice drifts (two `joinUrl`s had one doc comment and two behaviours; two Accept parsers read
 * `q=` differently), so each is declared once, where every plugin that needs it can reach it.
 */
const files = sourceFiles();

test('each shared helper is declared once in the daemon\'s sources', () => {
  const declared = (name: string) => new RegExp(`(?:function\\s+${name}\\b|(?:const|let)\\s+${name}\\s*[:=])`, 'g');
  for (const name of ['messageOf', 'joinUrl', 'mapLimit', 'acceptedMediaRanges', 'TIMEOUT_CODES', 'ACTUATOR_ACCEPT']) {
    assert.is(occurrences(files, declared(name)).length, 1, `${name}: ${occurrences(files, declared(name)).join(', ')}`);
  }
  // Written out instead of called: the message of anything thrown.
  const inline = occurrences(files, /instanceof Error \? \w+\.message : String\(\w+\)/g);
  assert.is(inline.length, 1, `messageOf written out at ${inline.join(', ')}`);
  // Spring Boot Admin's default Accept for calls to instances, and a pool of workers over a list.
  assert.is(occurrences(files, /'application\/vnd\.spring-boot\.actuator\.v3\+json, application\/vnd\.spring-boot\.actuator\.v2\+json/g).length, 1);
  assert.is(occurrences(files, /Array\.from\(\{ length: Math\.min\(/g).length, 1, 'one worker pool');
});

test('every ERR_ code raised anywhere is declared in core/errors.ts, named ERR_ and upper-case words', () => {
  const used = new Set<string>();
  for (const file of files) for (const match of file.text.matchAll(/'(ERR_[A-Z0-9_]+)'/g)) used.add(match[1]!);
  // Node's and undici's own codes are theirs, not Vigil's.
  const foreign = /^ERR_(MODULE_NOT_FOUND|STREAM_|HTTP_|INVALID_|SOCKET_)/;
  const undeclared = [...used].filter((code) => !foreign.test(code) && !(code in ERROR_CODES));
  assert.equal(undeclared, []);
  for (const code of Object.keys(ERROR_CODES)) assert.match(code, /^ERR_[A-Z]+(_[A-Z]+)*$/);
  assert.equal(Object.keys(ERROR_CODES).filter((code) => code.includes('VIGIL')), [], 'no code repeats the product name');
});

test('the codes of failed calls to instances are named once and compared through their names', () => {
  const literals = occurrences(files.filter((file) => file.path !== 'core/errors.ts'), /'(EABORTED|EBODYTOOLARGE|ECUTOFF|ECALLFAILED)'/g);
  assert.equal(literals, []);
});

test.run();
