import type { BuiltinPlugins } from '../core/plugin-resolve.js';
import type { VigilPlugin } from '../core/plugin-api.js';

// Each plugin is typed by its own config; the host validates the config before handing it over.
const load = <C>(module: Promise<{ default: VigilPlugin<C> }>) => module.then((m) => m.default as unknown as VigilPlugin<unknown>);

/**
 * The built-in plugins: a static map, not a folder scan, so what ships is explicit. A module is
 * imported only when a config names the plugin or carries its section; `section` is the plugin's
 * `configKey`, declared here so unknown-key checks need no import (a test keeps the two equal).
 */
export const builtinPlugins: BuiltinPlugins = {
  'rest-api': { section: null, load: () => load(import('./rest-api/index.js')) },
  sse: { section: 'sse', load: () => load(import('./sse/index.js')) },
  proxy: { section: 'proxy', load: () => load(import('./proxy/index.js')) },
  monitor: { section: 'monitor', load: () => load(import('./monitor/index.js')) },
  'detect-index': { section: null, load: () => load(import('./detect-index/index.js')) },
  'detect-probe': { section: 'probed-endpoints', load: () => load(import('./detect-probe/index.js')) },
  'detect-metadata': { section: null, load: () => load(import('./detect-metadata/index.js')) },
  cors: { section: 'cors', load: () => load(import('./cors/index.js')) },
  'basic-auth': { section: 'basic-auth', load: () => load(import('./basic-auth/index.js')) },
  ui: { section: null, load: () => load(import('./ui/index.js')) },
  'discovery-file': { section: 'discovery-file', load: () => load(import('./discovery-file/index.js')) },
  'discovery-dns': { section: 'discovery-dns', load: () => load(import('./discovery-dns/index.js')) },
  'discovery-kubernetes': { section: 'discovery-kubernetes', load: () => load(import('./discovery-kubernetes/index.js')) },
  'discovery-consul': { section: 'discovery-consul', load: () => load(import('./discovery-consul/index.js')) },
  'discovery-eureka': { section: 'discovery-eureka', load: () => load(import('./discovery-eureka/index.js')) },
};
