import { listOf } from './spring-source.js';
import type { Keyed } from './sba-notifiers.js';
import { displayKey, type Migration } from './values.js';

/** Keys of Spring Cloud's discovery clients, by client: `eureka.client.*`, `spring.cloud.consul.*`, `spring.cloud.kubernetes.*`. */
export interface DiscoveryClients {
  readonly eureka: readonly Keyed[];
  readonly consul: readonly Keyed[];
  readonly kubernetes: readonly Keyed[];
}

/** SBA's `spring.boot.admin.discovery.*` (reference §12.1) and the keys every `discovery-*` plugin shares (CONTRACT §5). */
const SHARED: Readonly<Record<string, string>> = {
  services: 'services',
  ignoredservices: 'ignored-services',
  'converter.managementcontextpath': 'management-context-path',
  'converter.healthendpointpath': 'health-endpoint-path',
};
const MAPS: Readonly<Record<string, string>> = { instancesmetadata: 'instances-metadata', ignoredinstancesmetadata: 'ignored-instances-metadata' };

/** Which keys are handled here: anything that is not one of these is left to the ignored list. */
export function isDiscoveryClientKey(canonical: string): keyof DiscoveryClients | undefined {
  if (canonical.startsWith('eureka.client.')) return 'eureka';
  if (canonical.startsWith('spring.cloud.consul.')) return 'consul';
  if (canonical.startsWith('spring.cloud.kubernetes.')) return 'kubernetes';
  return undefined;
}

/**
 * SBA discovers through whichever Spring Cloud DiscoveryClient is on its class path, set up by
 * that client's own keys. Each client named in the file becomes its `discovery-*` plugin, and
 * SBA's discovery settings are copied into each; without one they are listed as not carried.
 */
export function mapDiscovery(m: Migration, settings: readonly Keyed[], clients: DiscoveryClients): void {
  const enabled = settings.find((item) => item.rest.join('.') === 'enabled');
  if (enabled && String(enabled.entry.value).trim().toLowerCase() === 'false') {
    for (const { entry } of settings) m.skip(entry, 'discovery is switched off (spring.boot.admin.discovery.enabled: false)');
    return;
  }
  const used = new Set<Keyed>();
  const plugins = [eureka(m, clients.eureka, used), consul(m, clients.consul, used), kubernetes(m, clients.kubernetes, used)]
    .filter((plugin): plugin is string => plugin !== undefined);
  // The clients' other settings (Eureka's lease renewal, Consul's health checks...) are Spring Cloud's, not SBA's.
  for (const item of [...clients.eureka, ...clients.consul, ...clients.kubernetes]) if (!used.has(item)) m.ignored.push(displayKey(item.entry));
  for (const item of settings) {
    const key = item.rest.join('.');
    if (key === 'enabled') continue;
    const shared = SHARED[key];
    const map = item.rest.length === 2 ? MAPS[item.rest[0]!] : undefined;
    if (plugins.length === 0) {
      m.skip(item.entry, 'no discovery client is set up in this file (eureka.client.*, spring.cloud.consul.*, spring.cloud.kubernetes.*): add the matching discovery-* plugin and this setting to it');
    } else if (!shared && !map) {
      m.skip(item.entry, 'not a discovery setting Vigil knows');
    } else {
      for (const plugin of plugins) {
        const path = shared ? [plugin, shared] : [plugin, map!, String(item.raw[1])];
        m.set(path, shared === 'services' || shared === 'ignored-services' ? m.texts(item.entry.value, path) : m.text(item.entry.value as string, path));
      }
    }
  }
}

/** The client setting `key` (canonical, dotted), marked as used. */
function find(items: readonly Keyed[], key: string, used?: Set<Keyed>): Keyed | undefined {
  const item = items.find((candidate) => candidate.rest.join('.') === key);
  if (item) used?.add(item);
  return item;
}
const off = (items: readonly Keyed[], used: Set<Keyed>, ...keys: string[]) => keys.some((key) => String(find(items, key, used)?.entry.value ?? '').trim().toLowerCase() === 'false');

function eureka(m: Migration, items: readonly Keyed[], used: Set<Keyed>): string | undefined {
  const zone = find(items, 'serviceurl.defaultzone', used);
  if (!zone || off(items, used, 'enabled', 'fetchregistry')) return undefined;
  const urls = m.texts(zone.entry.value, ['discovery-eureka', 'url']);
  m.use('discovery-eureka');
  m.set(['discovery-eureka', 'url'], urls[0], urls.length > 1 ? `from eureka.client.service-url.defaultZone; the other zones (${urls.slice(1).join(', ')}) are not used` : 'from eureka.client.service-url.defaultZone');
  const fetch = find(items, 'registryfetchintervalseconds', used);
  if (fetch) m.set(['discovery-eureka', 'refresh-interval'], `${m.number(fetch.entry.value, ['discovery-eureka', 'refresh-interval'])}s`, 'from eureka.client.registry-fetch-interval-seconds');
  return 'discovery-eureka';
}

function consul(m: Migration, items: readonly Keyed[], used: Set<Keyed>): string | undefined {
  if (items.length === 0 || off(items, used, 'enabled', 'discovery.enabled')) return undefined;
  const part = (key: string, fallback: string) => {
    const item = find(items, key, used);
    return item ? m.text(item.entry.value as string, ['discovery-consul', 'url']) : fallback;
  };
  m.use('discovery-consul');
  m.set(['discovery-consul', 'url'], `${part('scheme', 'http')}://${part('host', 'localhost')}:${part('port', '8500')}`, 'from spring.cloud.consul scheme, host and port (Spring Cloud defaults: http, localhost, 8500)');
  const token = find(items, 'discovery.acltoken', used) ?? find(items, 'token', used);
  if (token) m.set(['discovery-consul', 'token'], m.text(token.entry.value as string, ['discovery-consul', 'token']));
  return 'discovery-consul';
}

function kubernetes(m: Migration, items: readonly Keyed[], used: Set<Keyed>): string | undefined {
  if (items.length === 0 || off(items, used, 'enabled', 'discovery.enabled')) return undefined;
  m.use('discovery-kubernetes');
  const namespaces = find(items, 'discovery.namespaces', used) ?? find(items, 'client.namespace', used);
  if (namespaces) m.set(['discovery-kubernetes', 'namespaces'], m.texts(namespaces.entry.value, ['discovery-kubernetes', 'namespaces']));
  const labels = items.filter((item) => item.rest[0] === 'discovery' && item.rest[1] === 'servicelabels' && item.rest.length === 3);
  for (const label of labels) used.add(label);
  if (labels.length > 0) {
    const selector = labels.map((item) => `${String(item.raw[2])}=${m.text(item.entry.value as string, ['discovery-kubernetes', 'label-selector'])}`).join(',');
    m.set(['discovery-kubernetes', 'label-selector'], selector, 'from spring.cloud.kubernetes.discovery.service-labels');
  }
  const master = find(items, 'client.masterurl', used);
  if (master) m.set(['discovery-kubernetes', 'api-url'], m.text(master.entry.value as string, ['discovery-kubernetes', 'api-url']));
  const ca = find(items, 'client.cacertfile', used);
  if (ca) m.set(['discovery-kubernetes', 'ca-file'], m.text(ca.entry.value as string, ['discovery-kubernetes', 'ca-file']));
  if (listOf(find(items, 'discovery.allnamespaces', used)?.entry.value).map(String).includes('true')) {
    m.note(['discovery-kubernetes'], 'spring.cloud.kubernetes.discovery.all-namespaces was on: list the namespaces to watch in namespaces');
  }
  return 'discovery-kubernetes';
}
