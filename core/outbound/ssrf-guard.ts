import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { parseCidr } from './cidr.js';

export interface SsrfSettings {
  readonly enabled: boolean;
  readonly 'allowed-cidrs': readonly string[];
  readonly 'allowed-schemes': readonly string[];
}

/** Resolves a host name to every address it has, as `dns.lookup(host, {all: true})` does. */
export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const defaultResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/** The code of every refusal, so callers can tell it from a failed connection (the proxy answers 403). */
export const SSRF_REFUSED = 'ERR_VIGIL_SSRF_REFUSED';

/** A call the SSRF guard refused; its `code` is `SSRF_REFUSED`. */
export class SsrfRefusedError extends Error {
  readonly code = SSRF_REFUSED;

  constructor(reason: string) {
    super(`SSRF protection: ${reason}`);
    this.name = 'SsrfRefusedError';
  }
}

/**
 * Internal address ranges a call must not reach (Spring's "external addresses only" filter):
 * unspecified, loopback, link-local, RFC 1918, and IPv6 unique-local. IPv4-mapped IPv6
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
 * SBA's SSRF protection, for every call Vigil makes to an instance when enabled (the kernel's
 * `ssrf-protection`): the scheme must be allowed, and every address the host resolves to must be
 * external or inside `allowed-cidrs`.
 *
 * IP literals (in any spelling: WHATWG URL parsing has already turned decimal, octal and hex IPv4
 * forms into dotted quads) are refused before the call is sent (`refusalOf`). Names are checked
 * inside the connection itself, through the agent's `lookup` (`connectLookup`), with the very
 * addresses the socket then uses, so a name that resolves to a public address once and to an
 * internal one the next time (DNS rebinding) cannot slip through. A keep-alive connection is
 * checked once, when it opens.
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

  /** Why a call to `url` is refused before any lookup (its scheme, or an IP literal host), or undefined. */
  refusalOf(url: URL): SsrfRefusedError | undefined {
    const scheme = url.protocol.replace(/:$/, '').toLowerCase();
    if (!this.#schemes.has(scheme)) return new SsrfRefusedError(`disallowed scheme '${scheme}'`);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !this.permits(host)) return new SsrfRefusedError(`${host} is not a permitted address`);
    return undefined;
  }

  /** A `lookup` for the agent's sockets that refuses internal addresses at connect time. */
  connectLookup(): LookupFunction {
    return (hostname: string, options: LookupOptions, callback) => {
      this.resolve(hostname, (error, addresses) => {
        if (error) return callback(error, '');
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
        const blocked = wanted.find((entry) => !this.permits(entry.address));
        if (blocked) return callback(new SsrfRefusedError(`${hostname} resolves to ${blocked.address}, which is not permitted`), '');
        if (options.all) return callback(null, wanted);
        const [first] = wanted;
        return first ? callback(null, first.address, first.family) : callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      });
    };
  }
}
