import { promises as dns } from 'node:dns';
import type { Discovered, DiscoverySource, SourceContext } from '../../core/kits/discovery/index.js';

export interface DnsRecord {
  /** The service (application) name the instances get. */
  readonly name: string;
  /** The SRV name to resolve, e.g. `_http._tcp.orders.example`. */
  readonly srv: string;
  readonly scheme: string;
  /** Metadata every instance of the record gets; beats TXT pairs of the same key. */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface DnsKeys {
  readonly records: readonly DnsRecord[];
  /** `host:port` (or `host`) of the DNS servers to ask; empty: the system's. */
  readonly servers: readonly string[];
  /** Put the target's address (A, else AAAA, from the same servers) in the URL instead of its name. */
  readonly 'resolve-targets': boolean;
}

/** Answers that mean "nothing is listed there": NXDOMAIN, and NOERROR without records. */
const EMPTY = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * SRV records as a source: one instance per record target, `scheme://target:port`. SRV has no
 * path and no metadata, so both come from the config, plus the TXT `key=value` strings found at
 * the SRV name (DNS-SD style). NXDOMAIN and empty answers list nothing (the removal guard still
 * applies); SERVFAIL, REFUSED, a timeout or any other error fails the run. SRV carries no TTL in
 * Node's API, so the records are read every `refresh-interval` (30 s).
 */
export function dnsSource(context: SourceContext<DnsKeys>): DiscoverySource {
  const { records, servers } = context.config;
  return {
    async list({ signal }) {
      // One resolver per run, so that an aborted run cancels only its own queries.
      const resolver = new dns.Resolver({ timeout: Math.min(context.config.timeout, 5000), tries: 2 });
      if (servers.length > 0) resolver.setServers([...servers]);
      const cancel = () => resolver.cancel();
      signal.addEventListener('abort', cancel, { once: true });
      try {
        const lists = await Promise.all(records.map((record) => listRecord(resolver, record, context.config['resolve-targets'])));
        return lists.flat();
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    },
  };
}

async function listRecord(resolver: dns.Resolver, record: DnsRecord, resolveTargets: boolean): Promise<Discovered[]> {
  const [targets, txt] = await Promise.all([
    answer(resolver.resolveSrv(record.srv), record.srv, 'SRV'),
    answer(resolver.resolveTxt(record.srv), record.srv, 'TXT'),
  ]);
  const metadata = { ...txtPairs(txt ?? []), ...record.metadata };
  const entries: Discovered[] = [];
  for (const target of targets ?? []) {
    // RFC 2782: a target of "." says the service is decidedly not available there.
    if (target.name === '' || target.name === '.') continue;
    const host = resolveTargets ? await addressOf(resolver, target.name) : target.name;
    entries.push({ name: record.name, uri: `${record.scheme}://${host.includes(':') ? `[${host}]` : host}:${target.port}`, metadata });
  }
  return entries;
}

/** The answer, undefined for "no such name" or "no such records", or a thrown error naming the query. */
async function answer<T>(query: Promise<T>, name: string, type: string): Promise<T | undefined> {
  try {
    return await query;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (EMPTY.has(code)) return undefined;
    throw new Error(`${type} ${name}: ${code || (error as Error).message}`);
  }
}

async function addressOf(resolver: dns.Resolver, name: string): Promise<string> {
  const v4 = await answer(resolver.resolve4(name), name, 'A');
  if (v4?.[0]) return v4[0];
  const v6 = await answer(resolver.resolve6(name), name, 'AAAA');
  if (v6?.[0]) return v6[0];
  throw new Error(`A/AAAA ${name}: the SRV target has no address`);
}

/** DNS-SD (RFC 6763 §6): each string of a TXT record is one `key=value`; a key alone is a true flag. */
function txtPairs(records: readonly (readonly string[])[]): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const text of records.flat()) {
    const equals = text.indexOf('=');
    if (equals === 0 || text === '') continue;
    if (equals < 0) pairs[text] = 'true';
    else pairs[text.slice(0, equals)] = text.slice(equals + 1);
  }
  return pairs;
}
