import { canonicalSegment, type SpringEntry } from './spring-source.js';
import type { Migration } from './values.js';

/** `spring.boot.admin.monitor.*` durations, all under Vigil's `monitor` with the same names. */
const MONITOR_DURATIONS = ['status-interval', 'status-lifetime', 'info-interval', 'info-lifetime', 'default-timeout', 'status-max-backoff', 'info-max-backoff'];
const BY_CANONICAL = new Map(MONITOR_DURATIONS.map((key) => [canonicalSegment(key), key]));

/** What a key under `spring.boot.admin.ui` would do and why Vigil's dashboard does without it. */
const UI_REASONS: Readonly<Record<string, string>> = {
  publicurl: 'the dashboard links everything relative to its own page, so it works behind a reverse proxy as is (for mail links see notify-mail.base-url)',
  polltimer: 'the dashboard refreshes its live views at fixed rates',
};

/**
 * The keys of SBA's `AdminServerProperties` (reference §10.1) Vigil has: the segments after
 * `spring.boot.admin.`, in canonical form (`rest`) and as written (`raw`, for map keys such as
 * application names). Returns false for keys handled elsewhere (discovery, notify).
 */
export function mapServerKey(m: Migration, entry: SpringEntry, rest: readonly string[], raw: readonly (string | number)[]): boolean {
  const [first, second] = rest;
  const value = entry.value;
  switch (first) {
    case 'contextpath':
      m.set(['context-path'], m.text(value as string, ['context-path']));
      return true;
    case 'metadatakeystosanitize':
      m.set(['metadata-keys-to-sanitize'], m.texts(value, ['metadata-keys-to-sanitize']));
      return true;
    case 'probedendpoints':
      m.set(['probed-endpoints'], m.texts(value, ['probed-endpoints']));
      return true;
    case 'instanceproxy':
      if (second === 'ignoredheaders' && rest.length === 2) {
        m.set(['proxy', 'ignored-headers'], m.texts(value, ['proxy', 'ignored-headers']), 'SBA: spring.boot.admin.instance-proxy.ignored-headers (the hop-by-hop headers are dropped as well, as in SBA)');
        return true;
      }
      break;
    case 'monitor':
      return monitorKey(m, entry, rest.slice(1), raw.slice(1));
    case 'instanceauth':
      return instanceAuthKey(m, entry, rest.slice(1), raw.slice(1));
    case 'ssrfprotection': {
      const target = second === 'enabled' ? 'enabled' : second === 'allowedcidrs' ? 'allowed-cidrs' : second === 'allowedschemes' ? 'allowed-schemes' : undefined;
      if (target && rest.length === 2) {
        const path = ['ssrf-protection', target];
        m.set(path, target === 'enabled' ? m.boolean(value, path) : m.texts(value, path));
        return true;
      }
      break;
    }
    case 'ui':
      m.skip(entry, UI_REASONS[second ?? ''] ?? "Vigil's dashboard has no such setting (it is not themed or branded, and every view it has is always on)");
      return true;
    case 'hazelcast':
      m.skip(entry, 'Vigil does not use Hazelcast: several Vigil nodes share their state through Redis with the cluster-redis plugin');
      return true;
    case 'client':
      m.skip(entry, "SBA's client, registering this server with a server; Vigil does not register with itself");
      return true;
    case 'server':
      m.skip(entry, 'Vigil is always a server; leave a plugin out of plugins: to turn a part off');
      return true;
    case 'routes':
    case 'turbine':
      m.skip(entry, 'a Spring Boot Admin 1.x setting, gone since 2.0; the dashboard shows every view the instance exposes');
      return true;
    case 'mcp':
      m.skip(entry, 'Vigil has no MCP server');
      return true;
    default:
      break;
  }
  if (first === 'discovery' || first === 'notify') return false;
  m.skip(entry, 'not a Spring Boot Admin server setting Vigil knows');
  return true;
}

function monitorKey(m: Migration, entry: SpringEntry, rest: readonly string[], raw: readonly (string | number)[]): boolean {
  const [key, sub] = rest;
  const value = entry.value;
  const duration = key !== undefined && rest.length === 1 ? BY_CANONICAL.get(key) : undefined;
  if (duration) {
    const path = ['monitor', duration];
    m.set(path, m.duration(value, path));
    return true;
  }
  if (key === 'defaultretries' && rest.length === 1) {
    m.set(['monitor', 'default-retries'], m.number(value, ['monitor', 'default-retries']));
    return true;
  }
  if ((key === 'timeout' || key === 'retries') && sub !== undefined && rest.length === 2) {
    // Endpoint ids are map keys: kept as written (`actuator-index`).
    const path = ['monitor', key, String(raw[1])];
    m.set(path, key === 'timeout' ? m.duration(value, path) : m.number(value, path));
    return true;
  }
  if (key === 'statuschangedetectionstrategy' && rest.length === 1) {
    const strategy = String(value).trim().toUpperCase().replace(/-/g, '_');
    if (strategy === 'FULL' || strategy === 'STATUS_ONLY') {
      m.set(['monitor', 'status-change-detection'], strategy === 'FULL' ? 'full' : 'status');
      return true;
    }
    m.skip(entry, `SBA knows STATUS_ONLY and FULL, not ${String(value)}`);
    return true;
  }
  // Renamed in SBA 2.0 (its metadata marks them removed); meant as the settings that replaced them.
  if (key === 'period' && rest.length === 1) {
    m.set(['monitor', 'status-interval'], m.duration(value, ['monitor', 'status-interval']), 'from spring.boot.admin.monitor.period, which SBA 2 renamed to status-interval');
    return true;
  }
  if ((key === 'readtimeout' || key === 'connecttimeout') && rest.length === 1) {
    const path = ['monitor', 'default-timeout'];
    const converted = m.duration(value, path);
    const current = m.get(path);
    // Vigil's one time-out covers connect and read together: the longer of the two keeps both working.
    if (typeof current !== 'number' || (typeof converted === 'number' && converted > current)) {
      m.set(path, converted, `from spring.boot.admin.monitor.${key === 'readtimeout' ? 'read-timeout' : 'connect-timeout'}, which SBA 2 replaced by default-timeout`);
    }
    return true;
  }
  m.skip(entry, 'not a monitor setting Vigil knows');
  return true;
}

function instanceAuthKey(m: Migration, entry: SpringEntry, rest: readonly string[], raw: readonly (string | number)[]): boolean {
  const [key, , field] = rest;
  const value = entry.value;
  if (rest.length === 1 && (key === 'enabled' || key === 'defaultusername' || key === 'defaultpassword')) {
    const target = key === 'enabled' ? 'enabled' : key === 'defaultusername' ? 'default-user-name' : 'default-password';
    const path = ['instance-auth', target];
    m.set(path, key === 'enabled' ? m.boolean(value, path) : m.text(value as string, path));
    return true;
  }
  if (key === 'servicemap' && rest.length === 3 && (field === 'username' || field === 'userpassword')) {
    // The application name is a map key, matched against registration names: kept as written.
    const path = ['instance-auth', 'service-map', String(raw[1]), field === 'username' ? 'user-name' : 'user-password'];
    m.set(path, m.text(value as string, path));
    return true;
  }
  m.skip(entry, 'not an instance-auth setting Vigil knows');
  return true;
}
