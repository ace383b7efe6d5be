import type { BuiltinPlugins } from '../core/plugin-resolve.js';
import type { VigilPlugin } from '../core/plugin-api.js';

// A static map, not a folder scan: what ships is explicit, and a plugin's module is imported
// only when a config names it (or when its config section has to be checked).
// Each plugin is typed by its own config; the host validates the config before handing it over.
const load = <C>(module: Promise<{ default: VigilPlugin<C> }>) => module.then((m) => m.default as unknown as VigilPlugin<unknown>);

export const builtinPlugins: BuiltinPlugins = {
  'rest-api': () => load(import('./rest-api/index.js')),
  sse: () => load(import('./sse/index.js')),
  proxy: () => load(import('./proxy/index.js')),
  monitor: () => load(import('./monitor/index.js')),
  'detect-index': () => load(import('./detect-index/index.js')),
  'detect-probe': () => load(import('./detect-probe/index.js')),
  'detect-metadata': () => load(import('./detect-metadata/index.js')),
  cors: () => load(import('./cors/index.js')),
  'basic-auth': () => load(import('./basic-auth/index.js')),
};
