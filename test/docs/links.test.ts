import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { brokenLinks, headingSlug, linksOf } from '../support/markdown-links.js';
import { repoRoot } from '../support/paths.js';

/**
 * Issue 30, item 7: the README is the front door and the manual lives in docs/. Every relative
 * link and anchor of both must resolve, every page of docs/ must be reachable from the README, and
 * the README must stay short and show the commands a new user (and CI) runs.
 */

const docsPages = (): string[] => readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
const readme = (): string => readFileSync(join(repoRoot, 'README.md'), 'utf8');

test('every relative link and anchor in README.md, docs/*.md and CHANGELOG.md resolves', () => {
  assert.equal(brokenLinks(repoRoot, ['README.md', ...docsPages(), 'CHANGELOG.md']), []);
});

test('the README links every page of docs/', () => {
  const linked = new Set(linksOf('README.md', readme()).map((link) => link.target.split('#')[0]));
  assert.ok(docsPages().length >= 10, 'configuration, plugins, API, notifications, discovery, cluster, operating, security, writing a plugin, benchmarks');
  assert.equal(docsPages().filter((page) => !linked.has(page)), [], 'pages no README link reaches');
});

test('the README is a front door: at most 400 lines, with npm install, npm start and npm test', () => {
  const text = readme();
  assert.ok(text.split('\n').length - 1 <= 400, `${text.split('\n').length - 1} lines`);
  for (const command of ['npm install', 'npm start', 'npm test']) assert.match(text, command);
});

test('headings get the anchors GitHub gives them', () => {
  assert.is(headingSlug('Moving from Spring Boot Admin: `vigil migrate-config`'), 'moving-from-spring-boot-admin-vigil-migrate-config');
  assert.is(headingSlug('`GET /notifications`'), 'get-notifications');
  assert.is(headingSlug('`detect-index`, `detect-probe`, `detect-metadata`'), 'detect-index-detect-probe-detect-metadata');
  assert.is(headingSlug('Running under systemd'), 'running-under-systemd');
});

test('the check names a missing file, a missing anchor and a link out of the repository; code and URLs are not links', () => {
  const root = mkdtempSync(join(tmpdir(), 'vigil-links-'));
  try {
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'a.md'), '# A\n\n## Keys\n\n## Keys\n\nText.\n');
    writeFileSync(join(root, 'README.md'), [
      '# Front', '',
      '[fine](docs/a.md) [fine](docs/a.md#keys) [fine](docs/a.md#keys-1) [fine](#front) [fine](docs)',
      '[gone](docs/b.md) [no anchor](docs/a.md#values) [no anchor here](#back) [out](../elsewhere.md)',
      '`[not a link](nowhere.md)` [web](https://example.com/x.md) [mail](mailto:ops@example.com)',
      '```', '[in code](nowhere.md)', '```', '',
    ].join('\n'));
    assert.equal(brokenLinks(root, ['README.md', 'docs/a.md']), [
      'README.md:4: (docs/b.md) names docs/b.md, which does not exist',
      'README.md:4: (docs/a.md#values): docs/a.md has no heading or id "values"',
      'README.md:4: (#back): README.md has no heading or id "back"',
      'README.md:4: (../elsewhere.md) leaves the repository',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();
