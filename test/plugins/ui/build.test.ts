import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkAppFolder } from '../../../plugins/ui/app-folder.js';
import { buildApp } from '../../../plugins/ui/build-app.js';

test('buildApp bundles the app into a fresh folder: the page, hashed assets, and their compressed copies', async () => {
  const folder = join(mkdtempSync(join(tmpdir(), 'vigil-ui-build-')), 'ui-app');
  try {
    mkdirSync(join(folder, 'ui'), { recursive: true });
    writeFileSync(join(folder, 'ui', 'app-STALE000.js'), 'stale');
    const built = await buildApp(folder);

    assert.is(built.folder, folder);
    assert.match(built.script, /^app-[A-Z0-9]{8}\.js$/);
    assert.match(built.stylesheet, /^style-[A-Z0-9]{8}\.css$/);
    assert.not.ok(existsSync(join(folder, 'ui', 'app-STALE000.js')), 'the old build is gone');
    checkAppFolder(folder);

    const page = readFileSync(join(folder, 'index.html'), 'utf8');
    assert.match(page, `<script type="module" src="ui/${built.script}"></script>`);
    assert.match(page, `<link rel="stylesheet" href="ui/${built.stylesheet}">`);
    assert.not.match(page, '%', 'every placeholder is filled');

    const script = readFileSync(join(folder, 'ui', built.script));
    assert.ok(script.length > 1000 && script.length < 200_000, `script of ${script.length} bytes`);
    assert.is(built.bytes, script.length + readFileSync(join(folder, 'ui', built.stylesheet)).length);
    assert.ok(gunzipSync(readFileSync(join(folder, 'ui', `${built.script}.gz`))).equals(script));
    assert.ok(brotliDecompressSync(readFileSync(join(folder, 'ui', `${built.script}.br`))).equals(script));
    assert.ok(existsSync(join(folder, 'ui', `${built.script}.map`)), 'a source map for debugging');
    assert.not.ok(existsSync(join(folder, 'ui', `${built.script}.map.gz`)), 'maps are not precompressed');
    // The bundle carries Preact, not a reference to a CDN.
    assert.not.match(script.toString('utf8'), /https?:\/\/(?:unpkg|cdn|esm\.sh)/);
    assert.equal(readdirSync(join(folder, 'ui')).filter((name) => !/\.(gz|br|map)$/.test(name)).sort(),
      [built.script, 'favicon.svg', built.stylesheet, ...built.chunks].sort());
    // The instance views are split off: the first page load does not carry them.
    assert.ok(built.chunks.length >= 10, `${built.chunks.length} lazy chunks`);
    for (const chunk of built.chunks) {
      assert.match(chunk, /^[\w-]+-[A-Z0-9]{8}\.js$/);
      assert.ok(existsSync(join(folder, 'ui', `${chunk}.br`)), `${chunk} precompressed`);
    }
  } finally {
    rmSync(join(folder, '..'), { recursive: true, force: true });
  }
});

test.run();
