import type { DiscoveredService } from '../../core/kits/discovery/index.js';

type Json = Record<string, unknown>;

/** Eureka's legacy codec writes a one-element list as the element itself. */
function list(value: unknown): Json[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).filter((item): item is Json => typeof item === 'object' && item !== null);
}

/** `{"$": 8080, "@enabled": "true"}`, with the number sometimes a string. */
function port(value: unknown): { port: number; enabled: boolean } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const raw = (value as Json)['$'];
  const number = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(number)) return undefined;
  const enabled = (value as Json)['@enabled'];
  return { port: number, enabled: enabled === true || enabled === 'true' };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Reads `GET /eureka/apps` (JSON): every instance of every application, whatever its Eureka
 * status (Vigil checks health itself, so a DOWN instance shows DOWN rather than vanishing).
 * The service URL is `https://host:securePort` when the secure port is enabled, else
 * `http://host:port`; the health URL is Eureka's `secureHealthCheckUrl`, else `healthCheckUrl`,
 * as SBA's EurekaServiceInstanceConverter takes it. Names stay as Eureka writes them (upper-case).
 */
export function parseApplications(body: unknown, preferIpAddress: boolean): DiscoveredService[] {
  const applications = typeof body === 'object' && body !== null ? (body as Json).applications : undefined;
  if (typeof applications !== 'object' || applications === null) throw new Error('the answer has no "applications" object: is the URL Eureka\'s (ending in /eureka)?');
  const entries: DiscoveredService[] = [];
  for (const application of list((applications as Json).application)) {
    for (const instance of list(application.instance)) {
      const name = text(instance.app) ?? text(application.name);
      const host = preferIpAddress ? text(instance.ipAddr) ?? text(instance.hostName) : text(instance.hostName) ?? text(instance.ipAddr);
      if (!name || !host) continue;
      const secure = port(instance.securePort);
      const plain = port(instance.port);
      const uri = secure?.enabled ? `https://${host}:${secure.port}` : `http://${host}${plain ? `:${plain.port}` : ''}`;
      const metadata: Record<string, string> = {};
      for (const [key, value] of Object.entries(typeof instance.metadata === 'object' && instance.metadata !== null ? instance.metadata as Json : {})) {
        // `@class` and friends are the codec's, not the application's.
        if (key.startsWith('@')) continue;
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') metadata[key] = String(value);
      }
      const healthUrl = text(instance.secureHealthCheckUrl) ?? text(instance.healthCheckUrl);
      entries.push({ name, uri, metadata, ...(healthUrl ? { healthUrl } : {}) });
    }
  }
  return entries;
}
