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
  oidc: { section: 'oidc', load: () => load(import('./oidc/index.js')) },
  ui: { section: null, load: () => load(import('./ui/index.js')) },
  'cluster-redis': { section: 'cluster-redis', load: () => load(import('./cluster-redis/index.js')) },
  probes: { section: null, load: () => load(import('./probes/index.js')) },
  openapi: { section: null, load: () => load(import('./openapi/index.js')) },
  metrics: { section: 'metrics', load: () => load(import('./metrics/index.js')) },
  'prometheus-sd': { section: 'prometheus-sd', load: () => load(import('./prometheus-sd/index.js')) },
  notify: { section: 'notify', load: () => load(import('./notify/index.js')) },
  'notify-webhook': { section: 'notify-webhook', load: () => load(import('./notify-webhook/index.js')) },
  'notify-slack': { section: 'notify-slack', load: () => load(import('./notify-slack/index.js')) },
  'notify-teams': { section: 'notify-teams', load: () => load(import('./notify-teams/index.js')) },
  'notify-discord': { section: 'notify-discord', load: () => load(import('./notify-discord/index.js')) },
  'notify-telegram': { section: 'notify-telegram', load: () => load(import('./notify-telegram/index.js')) },
  'notify-mattermost': { section: 'notify-mattermost', load: () => load(import('./notify-mattermost/index.js')) },
  'notify-pagerduty': { section: 'notify-pagerduty', load: () => load(import('./notify-pagerduty/index.js')) },
  'notify-opsgenie': { section: 'notify-opsgenie', load: () => load(import('./notify-opsgenie/index.js')) },
  'notify-mail': { section: 'notify-mail', load: () => load(import('./notify-mail/index.js')) },
  'notify-alertmanager': { section: 'notify-alertmanager', load: () => load(import('./notify-alertmanager/index.js')) },
  'discovery-file': { section: 'discovery-file', load: () => load(import('./discovery-file/index.js')) },
  'discovery-dns': { section: 'discovery-dns', load: () => load(import('./discovery-dns/index.js')) },
  'discovery-kubernetes': { section: 'discovery-kubernetes', load: () => load(import('./discovery-kubernetes/index.js')) },
  'discovery-consul': { section: 'discovery-consul', load: () => load(import('./discovery-consul/index.js')) },
  'discovery-eureka': { section: 'discovery-eureka', load: () => load(import('./discovery-eureka/index.js')) },
};
