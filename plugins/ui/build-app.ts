import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { ASSET_PREFIX, DEFAULT_APP_FOLDER, INDEX_FILE } from './app-folder.js';

/** The browser sources, found from this file's compiled place (dist/plugins/ui → plugins/ui/app). */
export const APP_SOURCES = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'plugins', 'ui', 'app');

export interface BuiltApp {
  readonly folder: string;
  /** Asset file names under `ui/`, as the page links them. */
  readonly script: string;
  readonly stylesheet: string;
  /** Code split off the script, loaded only when a view needs it (the instance views). */
  readonly chunks: readonly string[];
  /** Bytes of the script and stylesheet before compression: what the first page load costs. */
  readonly bytes: number;
}

/**
 * Bundles the dashboard with esbuild into `folder`: `index.html` at the top and the hashed
 * assets under `ui/`, each also stored gzip- and brotli-compressed for sirv to pick.
 * The folder is replaced whole, so no stale asset outlives a build.
 */
export async function buildApp(folder: string = DEFAULT_APP_FOLDER, sources: string = APP_SOURCES): Promise<BuiltApp> {
  const assets = join(folder, ASSET_PREFIX);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(assets, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: join(sources, 'main.tsx'), style: join(sources, 'styles.css') },
    outdir: assets,
    entryNames: '[name]-[hash]',
    // Views imported with import() become their own files, fetched when first shown: the
    // applications page loads none of them.
    splitting: true,
    chunkNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    // Browsers of the last few years; no transpiling of what they all run natively.
    target: ['chrome111', 'edge111', 'firefox115', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(sources, 'tsconfig.json'),
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'eof',
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => /^app-.*\.js$/.test(name));
  const stylesheet = outputs.find((name) => /^style-.*\.css$/.test(name));
  if (!script || !stylesheet) throw new Error(`esbuild produced no app script or stylesheet: ${outputs.join(', ')}`);
  const chunks = outputs.filter((name) => name.endsWith('.js') && name !== script);
  // The chunks the app imports at once (Preact, shared code) are named in the page, so the browser
  // fetches them beside the app instead of after parsing it.
  const entry = Object.entries(result.metafile.outputs).find(([path]) => basename(path) === script)![1];
  const preloads = entry.imports.filter((imported) => imported.kind === 'import-statement')
    .map((imported) => `<link rel="modulepreload" href="${ASSET_PREFIX}/${basename(imported.path)}">`);

  copyFileSync(join(sources, 'favicon.svg'), join(assets, 'favicon.svg'));
  const page = readFileSync(join(sources, INDEX_FILE), 'utf8')
    .replaceAll('%SCRIPT%', `${ASSET_PREFIX}/${script}`)
    .replaceAll('%STYLESHEET%', `${ASSET_PREFIX}/${stylesheet}`)
    .replaceAll('%FAVICON%', `${ASSET_PREFIX}/favicon.svg`)
    .replace('<script type="module"', `${preloads.map((link) => `${link}\n  `).join('')}<script type="module"`);
  writeFileSync(join(folder, INDEX_FILE), page);

  let bytes = 0;
  for (const name of readdirSync(assets)) {
    if (name.endsWith('.map')) continue;
    const body = readFileSync(join(assets, name));
    if (name === script || name === stylesheet) bytes += body.length;
    writeFileSync(join(assets, `${name}.gz`), gzipSync(body, { level: 9 }));
    writeFileSync(join(assets, `${name}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
  return { folder, script, stylesheet, chunks, bytes };
}

// `node dist/plugins/ui/build-app.js` (the `build` script) builds into dist/ui-app.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const built = await buildApp();
  console.log(`ui: bundled ${built.script} and ${built.stylesheet} (${Math.round(built.bytes / 1024)} KiB) and ${built.chunks.length} lazy chunks into ${built.folder}`);
}
