import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { importCircles, importsOf, type Import } from './support/import-graph.js';
import { repoRoot } from './support/paths.js';
import { sourceFiles } from './support/sources.js';

/**
 * Issue 30, item 6: the layout's rules, read from every import of every source file (static,
 * dynamic, re-exports and type-only imports alike):
 *
 * - `bin/`            the command and the composition root; of the plugins it knows only their
 *                     entry files (`plugins/<name>/index.ts`, the built-in map);
 *                     `bin/kernel-parts.ts` builds the kernel's parts that live outside core/
 *                     from their kits (outbound, views, access, http-edge);
 * - `core/`           the kernel: imports nothing from `plugins/` or `bin/`, and no kit;
 * - `core/kits/<k>/`  what plugin authors (and the composition root) share: imports the contract
 *                     (`vigil/plugin`, `vigil/domain`) and other kits' published entries only,
 *                     plus Node's built-ins and the packages in KIT_PACKAGES;
 * - `core/domain/`    pure: no Node built-in and no package, in anything it reaches;
 * - `plugins/<p>/`    never another plugin's files; of `core/` only what the package publishes
 *                     (`vigil/plugin`, `vigil/domain`, `vigil/event-log`, the kits);
 * - the dashboard     (`plugins/ui/app/`) imports its own files, `vigil/domain` and Preact only;
 * - `config/`         the config loader: no plugin and no `bin/` file;
 * - nowhere under `bin/`, `core/`, `config/` or `plugins/` does an import circle close.
 */
const imports = importsOf(sourceFiles());
const KIT_PACKAGES = new Set(['yup', 'undici']);
const UI_APP = 'plugins/ui/app/';

/** The source file behind each published export of the package (`vigil/plugin` → core/plugin-api.ts). */
const published: ReadonlyMap<string, string> = (() => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { exports: Record<string, string | { default: string }> };
  const entries = new Map<string, string>();
  for (const [name, target] of Object.entries(manifest.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (file.endsWith('.js')) entries.set(file.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'), `vigil${name.slice(1)}`);
  }
  return entries;
})();

const pluginOf = (file: string): string | undefined => /^plugins\/([^/]+)\//.exec(file)?.[1];
const kitOf = (file: string): string | undefined => /^core\/kits\/([^/]+)\//.exec(file)?.[1];
const isKernel = (file: string): boolean => file.startsWith('core/') && !file.startsWith('core/kits/');
const line = (edge: Import): string => `${edge.from} → ${edge.file ?? edge.specifier}`;
const violations = (rule: (edge: Import) => boolean): string[] => imports.filter(rule).map(line);

test('the graph is read: every source file, static and dynamic imports, type-only ones too', () => {
  assert.ok(imports.some((edge) => edge.from === 'bin/builtin-plugins.ts' && edge.file === 'plugins/monitor/index.ts'), 'a dynamic import');
  assert.ok(imports.some((edge) => edge.from === 'core/plugin-api.ts' && edge.file === 'core/bus.ts'), 'a type-only import');
  assert.ok(imports.some((edge) => edge.from === 'core/kits/notify-channel/index.ts' && edge.file === 'core/kits/notify-channel/escape.ts'), 'a re-export');
  assert.ok(imports.some((edge) => edge.from.startsWith(UI_APP) && edge.specifier === 'vigil/domain'), 'the dashboard');
});

test('a plugin never imports another plugin\'s files', () => {
  assert.equal(violations((edge) => pluginOf(edge.from) !== undefined && edge.file !== undefined && pluginOf(edge.file) !== undefined && pluginOf(edge.file) !== pluginOf(edge.from)), []);
});

test('a plugin takes from core/ only what the package publishes, and nothing from bin/ or config/', () => {
  assert.equal(violations((edge) => pluginOf(edge.from) !== undefined && edge.file !== undefined
    && (edge.file.startsWith('bin/') || edge.file.startsWith('config/') || (edge.file.startsWith('core/') && !published.has(edge.file)))), []);
});

test('core/ imports nothing from plugins/ or bin/', () => {
  assert.equal(violations((edge) => edge.from.startsWith('core/') && edge.file !== undefined && (edge.file.startsWith('plugins/') || edge.file.startsWith('bin/'))), []);
});

test('no kernel file imports a kit', () => {
  assert.equal(violations((edge) => isKernel(edge.from) && edge.file !== undefined && kitOf(edge.file) !== undefined), []);
});

test('a kit imports only the contract (vigil/plugin, vigil/domain), other kits\' entries, Node\'s built-ins and its packages', () => {
  const contract = new Set(['core/plugin-api.ts', 'core/domain/index.ts']);
  assert.equal(violations((edge) => {
    const kit = kitOf(edge.from);
    if (kit === undefined || edge.builtin) return false;
    if (edge.packageName !== undefined) return !KIT_PACKAGES.has(edge.packageName);
    const file = edge.file!;
    return kitOf(file) !== kit && !contract.has(file) && !(kitOf(file) !== undefined && file === `core/kits/${kitOf(file)}/index.ts`);
  }), []);
});

test('the dashboard imports its own files, vigil/domain and Preact: no other server code', () => {
  assert.equal(violations((edge) => edge.from.startsWith(UI_APP)
    && (edge.file !== undefined ? !edge.file.startsWith(UI_APP) : edge.specifier !== 'vigil/domain' && edge.packageName !== 'preact')), []);
});

test('the domain is pure: nothing it reaches imports a Node built-in or a package', () => {
  const reached = new Set<string>();
  const pending = ['core/domain/index.ts'];
  const impure: string[] = [];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file)) continue;
    reached.add(file);
    for (const edge of imports.filter((candidate) => candidate.from === file)) {
      if (edge.file) pending.push(edge.file);
      else impure.push(line(edge));
    }
  }
  assert.ok(reached.size > 5, 'the domain was followed');
  assert.equal(impure, []);
});

test('bin/ knows of each plugin only its entry file; config/ imports no plugin and nothing from bin/', () => {
  assert.equal(violations((edge) => edge.from.startsWith('bin/') && edge.file !== undefined && edge.file.startsWith('plugins/') && !/^plugins\/[^/]+\/index\.ts$/.test(edge.file)), []);
  assert.equal(violations((edge) => edge.from.startsWith('config/') && edge.file !== undefined && (edge.file.startsWith('plugins/') || edge.file.startsWith('bin/'))), []);
});

test('the parts of the kernel that live outside core/ are kits composed by bin/kernel-parts.ts, and the kernel keeps no copy of them', () => {
  const composed = imports.filter((edge) => edge.from === 'bin/kernel-parts.ts' && edge.file !== undefined && kitOf(edge.file) !== undefined)
    .map((edge) => kitOf(edge.file!)).sort();
  assert.equal(composed, ['access', 'http-edge', 'outbound', 'views']);
  // The access decision point and the HTTP server's edge guards (Host, cross-site, connection and open-file limits, protocol errors).
  const moved = /^core\/access\/|^core\/http\/(allowed-hosts|connection-limits|open-file-limit|cross-site|protocol-errors)\.ts$/;
  assert.equal(sourceFiles().map((file) => file.path).filter((file) => isKernel(file) && moved.test(file)), []);
});

test('no import circle anywhere under bin/, core/, config/ or plugins/', () => {
  assert.equal(importCircles(imports, (file) => /^(bin|core|config|plugins)\//.test(file)), []);
});

test.run();
