#!/usr/bin/env node
// `npm pack` and `npm publish` run this around the packing (package.json's prepack and postpack):
//
//   node deploy/package/release-manifest.mjs strip     before: the release manifest, and the shrinkwrap
//   node deploy/package/release-manifest.mjs restore   after: the checkout as it was
//
// The checkout's package.json builds on `npm install` (its `prepare`), as a developer's clone must.
// The release package ships dist/ already built, so its package.json keeps only `start` among the
// scripts: npm then runs nothing when the package is installed, and warns about nothing. Its
// npm-shrinkwrap.json (a copy of package-lock.json, the only lockfile npm packs) pins the
// dependency tree the tests ran with, for `npm install -g` and `npm ci --omit=dev` alike.
// Plain JavaScript with no dependency: it runs before anything is built.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = join(root, 'package.json');
const shrinkwrap = join(root, 'npm-shrinkwrap.json');
const saved = join(root, '.build', 'pack', 'package.json');
/** The scripts an installed release can run; everything else needs the sources or devDependencies. */
const KEPT_SCRIPTS = ['start'];

function restore() {
  if (existsSync(saved)) renameSync(saved, manifest);
  rmSync(shrinkwrap, { force: true });
}

function strip() {
  // A pack that died between the two steps left the release manifest in place: start from the original.
  restore();
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  mkdirSync(dirname(saved), { recursive: true });
  writeFileSync(saved, text);
  pkg.scripts = Object.fromEntries(Object.entries(pkg.scripts ?? {}).filter(([name]) => KEPT_SCRIPTS.includes(name)));
  // Approvals for the developer's install scripts (esbuild's) mean nothing to an installed release.
  delete pkg.allowScripts;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
  copyFileSync(join(root, 'package-lock.json'), shrinkwrap);
}

const step = process.argv[2];
if (step === 'strip') strip();
else if (step === 'restore') restore();
else {
  process.stderr.write('usage: node deploy/package/release-manifest.mjs strip|restore\n');
  process.exitCode = 2;
}
