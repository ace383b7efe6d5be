import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { HttpError } from '../../core/plugin-api.js';
import { parseCidr } from './config-schema.js';

export interface SsrfSettings {
  readonly enabled: boolean;
  readonly 'allowed-cidrs': readonly string[];
  readonly 'allowed-schemes': readonly string[];
}

/** Resolves a host name to every address it has, as `dns.lookup(host, {all: true})` does. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const defaultResolver: Resolver = (hostname) => new Promise((resolve, reject) => {
  dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
});

/** The error a refused address raises inside a connection attempt; the proxy maps its code to 403. */
export const SSRF_REFUSED = 'ERR_VIGIL_SSRF_REFUSED';

/**
 * Internal address ranges a proxied call must not reach (Spring's "external addresses only"
 * filter): unspecified, loopback, link-local, RFC 1918, and IPv6 unique-local. IPv4-mapped IPv6
 * addresses (`::ffff:127.0.0.1`) match the IPv4 rules, as BlockList checks them.
 */
const INTERNAL: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
];

/**
 * SBA's SSRF protection, applied to every proxied target when enabled: the scheme must be
 * allowed, and every address the host resolves to must be external or inside `allowed-cidrs`.
 * A host that does not resolve passes here, as in SBA (the call then fails with 502).
 *
 * The check runs twice: before the call (a clear 403 for IP literals and names alike) and inside
 * the connection itself, through the agent's `lookup` (`connectLookup`), so a name that resolves
 * to a public address for the check and to an internal one for the connection (DNS rebinding)
 * is refused too. A keep-alive connection is checked once, when it opens.
 */
export class SsrfGuard {
  readonly #internal = new BlockList();
  readonly #allowed = new BlockList();
  readonly #schemes: ReadonlySet<string>;

  constructor(settings: SsrfSettings, private readonly resolve: Resolver = defaultResolver) {
    for (const [address, prefix, family] of INTERNAL) this.#internal.addSubnet(address, prefix, family);
    for (const entry of settings['allowed-cidrs']) {
      const cidr = parseCidr(entry);
      if (cidr) this.#allowed.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
    this.#schemes = new Set(settings['allowed-schemes'].map((scheme) => scheme.toLowerCase()));
  }

  /** Whether a call may go to this address. */
  permits(address: string): boolean {
    const version = isIP(address);
    if (version === 0) return false;
    const family = version === 4 ? 'ipv4' : 'ipv6';
    return this.#allowed.check(address, family) || !this.#internal.check(address, family);
  }

  /** Throws 403 when the URL's scheme or any address of its host is not allowed. */
  async check(url: URL): Promise<void> {
    const scheme = url.protocol.replace(/:$/, '').toLowerCase();
    if (!this.#schemes.has(scheme)) throw refused(`disallowed scheme '${scheme}'`);
    // WHATWG URL parsing already turned decimal, octal and hex IPv4 forms into dotted quads.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (isIP(host) !== 0) {
      addresses = [host];
    } else {
      try {
        addresses = (await this.resolve(host)).map((entry) => entry.address);
      } catch {
        return;
      }
    }
    const blocked = addresses.find((address) => !this.permits(address));
    if (blocked !== undefined) throw refused(`${host} resolves to ${blocked}, which is not permitted`);
  }

  /** A `lookup` for the agent's sockets that refuses internal addresses at connect time. */
  connectLookup(): LookupFunction {
    return (hostname: string, options: LookupOptions, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '');
        const blocked = addresses.find((entry) => !this.permits(entry.address));
        if (blocked) {
          const refusal = Object.assign(new Error(`SSRF protection: ${hostname} resolves to ${blocked.address}, which is not permitted`), { code: SSRF_REFUSED });
          return callback(refusal, '');
        }
        if (options.all) return callback(null, addresses);
        const [first] = addresses;
        return first ? callback(null, first.address, first.family) : callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      });
    };
  }
}

function refused(reason: string): HttpError {
  return new HttpError(403, `SSRF protection: ${reason}`);
}
