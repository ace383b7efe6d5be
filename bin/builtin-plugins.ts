import type { BuiltinPlugins } from '../core/plugin-resolve.js';
import type { VigilPlugin } from '../core/plugin-api.js';

// Each plugin is typed by its own config; the host validates the config before handing it over.
const load = <C>(module: Promise<{ default: VigilPlugin<C> }>) => module.then((m) => m.default as unknown as VigilPlugin<unknown>);

/**
 * The built-in plugins: a static map, not a folder scan, so what ships is explicit. A module is
 * imported only when a config names the plugin or carries its section, or when its CLI command
 * is run; `section` (the plugin's `configKey`) and `commands` (the names of its `commands`) are
 * declared here so neither the unknown-key check nor the CLI needs an import (tests keep them equal).
 */
export const builtinPlugins: BuiltinPlugins = {
  'rest-api': { section: null, load: () => load(import('../plugins/rest-api/index.js')) },
  sse: { section: 'sse', load: () => load(import('../plugins/sse/index.js')) },
  proxy: { section: 'proxy', load: () => load(import('../plugins/proxy/index.js')) },
  monitor: { section: 'monitor', load: () => load(import('../plugins/monitor/index.js')) },
  'detect-index': { section: null, load: () => load(import('../plugins/detect-index/index.js')) },
  'detect-probe': { section: 'probed-endpoints', load: () => load(import('../plugins/detect-probe/index.js')) },
  'detect-metadata': { section: null, load: () => load(import('../plugins/detect-metadata/index.js')) },
  cors: { section: 'cors', load: () => load(import('../plugins/cors/index.js')) },
  'basic-auth': { section: 'basic-auth', commands: ['hash-password'], load: () => load(import('../plugins/basic-auth/index.js')) },
  oidc: { section: 'oidc', load: () => load(import('../plugins/oidc/index.js')) },
  audit: { section: 'audit', load: () => load(import('../plugins/audit/index.js')) },
  ui: { section: null, load: () => load(import('../plugins/ui/index.js')) },
  'cluster-redis': { section: 'cluster-redis', load: () => load(import('../plugins/cluster-redis/index.js')) },
  probes: { section: null, load: () => load(import('../plugins/probes/index.js')) },
  openapi: { section: null, load: () => load(import('../plugins/openapi/index.js')) },
  metrics: { section: 'metrics', load: () => load(import('../plugins/metrics/index.js')) },
  'prometheus-sd': { section: 'prometheus-sd', load: () => load(import('../plugins/prometheus-sd/index.js')) },
  notify: { section: 'notify', load: () => load(import('../plugins/notify/index.js')) },
  'notify-webhook': { section: 'notify-webhook', load: () => load(import('../plugins/notify-webhook/index.js')) },
  'notify-slack': { section: 'notify-slack', load: () => load(import('../plugins/notify-slack/index.js')) },
  'notify-teams': { section: 'notify-teams', load: () => load(import('../plugins/notify-teams/index.js')) },
  'notify-discord': { section: 'notify-discord', load: () => load(import('../plugins/notify-discord/index.js')) },
  'notify-telegram': { section: 'notify-telegram', load: () => load(import('../plugins/notify-telegram/index.js')) },
  'notify-mattermost': { section: 'notify-mattermost', load: () => load(import('../plugins/notify-mattermost/index.js')) },
  'notify-pagerduty': { section: 'notify-pagerduty', load: () => load(import('../plugins/notify-pagerduty/index.js')) },
  'notify-opsgenie': { section: 'notify-opsgenie', load: () => load(import('../plugins/notify-opsgenie/index.js')) },
  'notify-mail': { section: 'notify-mail', load: () => load(import('../plugins/notify-mail/index.js')) },
  'notify-alertmanager': { section: 'notify-alertmanager', load: () => load(import('../plugins/notify-alertmanager/index.js')) },
  'discovery-file': { section: 'discovery-file', load: () => load(import('../plugins/discovery-file/index.js')) },
  'discovery-dns': { section: 'discovery-dns', load: () => load(import('../plugins/discovery-dns/index.js')) },
  'discovery-kubernetes': { section: 'discovery-kubernetes', load: () => load(import('../plugins/discovery-kubernetes/index.js')) },
  'discovery-consul': { section: 'discovery-consul', load: () => load(import('../plugins/discovery-consul/index.js')) },
  'discovery-eureka': { section: 'discovery-eureka', load: () => load(import('../plugins/discovery-eureka/index.js')) },
};
