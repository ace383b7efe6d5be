import type { DiscoveredService } from '../../core/kits/discovery/index.js';

type Json = Record<string, unknown>;

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/**
 * One `GET /v1/health/service/<name>` answer as instances: the address is `Service.Address`,
 * else the node's; metadata is `Service.Meta` (Consul forbids dots in its keys, so SBA's dashed
 * forms, `management-context-path`, are the ones to use); `secure=true` metadata means https.
 * Checks are not looked at.
 */
export function toEntries(name: string, body: unknown): DiscoveredService[] {
  if (!Array.isArray(body)) throw new Error(`the answer for service ${name} is not a list`);
  const entries: DiscoveredService[] = [];
  for (const item of body as Json[]) {
    const service = (item?.Service ?? {}) as Json;
    const node = (item?.Node ?? {}) as Json;
    const host = text(service.Address) ?? text(node.Address);
    const port = service.Port;
    if (!host || typeof port !== 'number') continue;
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(typeof service.Meta === 'object' && service.Meta !== null ? service.Meta as Json : {})) {
      if (typeof value === 'string') metadata[key] = value;
    }
    const scheme = metadata.secure === 'true' ? 'https' : 'http';
    entries.push({ name: text(service.Service) ?? name, uri: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`, metadata });
  }
  return entries;
}
