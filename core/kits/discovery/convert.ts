import { maskUrlPassword, parseRegistration, type Registration } from '../../domain/index.js';
import type { DiscoveryConfig } from './config.js';
import type { DiscoveredService } from './types.js';

const KEYS_MANAGEMENT_SCHEME = ['management.scheme', 'management-scheme'];
const KEYS_MANAGEMENT_ADDRESS = ['management.address', 'management-address'];
const KEYS_MANAGEMENT_PORT = ['management.port', 'management-port', 'port.management'];
const KEYS_MANAGEMENT_PATH = ['management.context-path', 'management-context-path'];
const KEYS_HEALTH_PATH = ['health.path', 'health-path'];

/**
 * A service URI in the parts SBA's converter compares. Parsed by hand, not with WHATWG `URL`,
 * because SBA keeps what the source wrote: `http://localhost:80` stays `http://localhost:80`
 * (java.net.URI keeps a default port), where `URL` would drop the `:80`.
 */
interface ServiceUri {
  readonly scheme: string;
  readonly host: string;
  /** -1 when the URI has no port, as java.net.URI says. */
  readonly port: number;
  readonly path: string;
}

const URI = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[^/?#:@[\]\s]+)(?::(\d{1,5}))?(\/[^?#\s]*)?$/i;

export class ConversionError extends Error {}

function parseServiceUri(uri: string): ServiceUri {
  const match = URI.exec(uri);
  if (!match) throw new ConversionError(`${JSON.stringify(maskUrlPassword(uri))} is not a URI of the form scheme://host[:port][/path]`);
  return { scheme: match[1]!, host: match[2]!, port: match[3] === undefined ? -1 : Number(match[3]), path: match[4] ?? '' };
}

function metadataValue(metadata: Readonly<Record<string, string>>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = metadata[key];
    // Spring's `hasText`: blank values fall back to the default.
    if (value !== undefined && value.trim() !== '') return value;
  }
  return undefined;
}

/** UriComponentsBuilder appends path segments and then collapses every `//` into `/`. */
function joinPath(...parts: string[]): string {
  return parts.join('/').replace(/\/{2,}/g, '/');
}

function toUri(parts: ServiceUri): string {
  const host = parts.host.includes(':') && !parts.host.startsWith('[') ? `[${parts.host}]` : parts.host;
  return `${parts.scheme}://${host}${parts.port === -1 ? '' : `:${parts.port}`}${parts.path}`;
}

function parsePort(value: string | number): number {
  const port = typeof value === 'number' ? value : /^\s*\d{1,5}\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConversionError(`management port ${JSON.stringify(value)} is not a port number`);
  return port;
}

/**
 * SBA's DefaultServiceInstanceConverter (and its Kubernetes and Eureka variants, through
 * `managementPort` and `healthUrl`): the management URL reuses the service URI, path included,
 * only when scheme, host and port all equal the service URI's; then `/` and the context path;
 * health is the management URL, `/` and the health path. Metadata keys beat the configured
 * defaults; both the dotted and the dashed (Consul) spellings are read.
 */
export function convertService(entry: DiscoveredService, config: Pick<DiscoveryConfig, 'management-context-path' | 'health-endpoint-path'>): Registration {
  const metadata = entry.metadata ?? {};
  // A source lists mostly what it listed last time, and the checks cost a few URL parses each
  // (a large list's run adds up: bench/REPORT.md). Equal input gives the same (immutable) registration, found by the
  // service URI and compared field by field, so that a lookup allocates nothing.
  const known = converted.get(entry.uri);
  if (known && known.name === entry.name && known.healthUrl === entry.healthUrl && known.managementPort === entry.managementPort
    && known.contextPath === config['management-context-path'] && known.healthPath === config['health-endpoint-path'] && sameMetadata(known.metadata, metadata)) {
    return known.registration;
  }
  const registration = convert(entry, metadata, config);
  if (converted.size >= MAX_CONVERTED) converted.clear();
  converted.set(entry.uri, {
    name: entry.name, healthUrl: entry.healthUrl, managementPort: entry.managementPort, metadata,
    contextPath: config['management-context-path'], healthPath: config['health-endpoint-path'], registration,
  });
  return registration;
}

interface Converted {
  readonly name: string;
  readonly healthUrl: string | undefined;
  readonly managementPort: number | undefined;
  readonly metadata: Readonly<Record<string, string>>;
  readonly contextPath: string;
  readonly healthPath: string;
  readonly registration: Registration;
}

/** The last conversion of each service URI; cleared whole when full (a bound: sources relist everything each run). */
const converted = new Map<string, Converted>();
const MAX_CONVERTED = 200_000;

function sameMetadata(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  if (a === b) return true;
  let count = 0;
  for (const key in b) {
    if (a[key] !== b[key] || !Object.hasOwn(a, key)) return false;
    count += 1;
  }
  for (const _key in a) count -= 1;
  return count === 0;
}

function convert(entry: DiscoveredService, metadata: Readonly<Record<string, string>>, config: Pick<DiscoveryConfig, 'management-context-path' | 'health-endpoint-path'>): Registration {
  const service = parseServiceUri(entry.uri);
  const scheme = metadataValue(metadata, KEYS_MANAGEMENT_SCHEME) ?? service.scheme;
  const host = metadataValue(metadata, KEYS_MANAGEMENT_ADDRESS) ?? service.host;
  const configuredPort = entry.managementPort ?? metadataValue(metadata, KEYS_MANAGEMENT_PORT);
  const port = configuredPort === undefined ? service.port : parsePort(configuredPort);
  const managementPath = metadataValue(metadata, KEYS_MANAGEMENT_PATH) ?? config['management-context-path'];
  const sameServer = service.host === host && service.scheme === scheme && service.port === port;
  const base = sameServer ? service : { scheme, host, port, path: '' };
  const management = { ...base, path: joinPath(base.path, managementPath) };
  const healthPath = metadataValue(metadata, KEYS_HEALTH_PATH) ?? config['health-endpoint-path'];
  const healthUrl = entry.healthUrl !== undefined && entry.healthUrl.trim() !== ''
    ? entry.healthUrl
    : toUri({ ...management, path: joinPath(management.path, healthPath) });
  return checked({ name: entry.name, healthUrl, managementUrl: toUri(management), serviceUrl: entry.uri, metadata });
}

/** Every registration a source produces passes the same checks as one made over HTTP. */
export function checked(body: Readonly<Record<string, unknown>>): Registration {
  const parsed = parseRegistration(body, 'discovery');
  if (!parsed.ok) throw new ConversionError(parsed.problems.join('; '));
  return parsed.registration;
}
