import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { SSRF_REFUSED, VigilError, parseCidr } from '../../plugin-api.js';
import { embeddedIpv4 } from './embedded-ipv4.js';

export interface SsrfSettings {
  readonly enabled: boolean;
  readonly 'allowed-cidrs': readonly string[];
  readonly 'allowed-schemes': readonly string[];
}

/** Resolves a host name to every address it has, as `dns.lookup(host, {all: true})` does. */
export type Resolver = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const defaultResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/** A call the SSRF guard refused; its `code` is `SSRF_REFUSED`. */
export class SsrfRefusedError extends VigilError {
  constructor(reason: string) {
    super(SSRF_REFUSED, `SSRF protection: ${reason}`);
    this.name = 'SsrfRefusedError';
  }
}

/**
 * Internal address ranges a call must not reach (Spring's "external addresses only" filter, and
 * more): unspecified, loopback, link-local, RFC 1918, shared address space (RFC 6598, carrier-grade
 * NAT, also used by cloud metadata services), IPv6 unique-local and the deprecated site-local
 * range, and the NAT64 (RFC 6052) and 6to4 (RFC 3056) prefixes, whose translators and relays may
 * sit inside the network. An IPv6 address that carries an IPv4 address is also judged by the IPv4
 * rules (see `permits`).
 */
const INTERNAL: readonly [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['2002::', 16, 'ipv6'],
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

  /**
   * Whether a call may go to this address: inside `allowed-cidrs`, or outside the internal ranges.
   * An IPv6 address carrying an IPv4 one is judged by that IPv4 address: the IPv4-mapped and
   * IPv4-compatible forms are that address on the wire, so its verdict is theirs (an IPv6 entry
   * of `allowed-cidrs` may still allow one); a NAT64 or 6to4 address needs both its IPv4 address
   * permitted and its own prefix allowed (`64:ff9b::/96` in `allowed-cidrs` for a DNS64 network).
   */
  permits(address: string): boolean {
    const bare = address.replace(/%.*$/, '');
    const version = isIP(bare);
    if (version === 0) return false;
    if (version === 4) return this.#permitsIpv4(bare);
    const embedded = embeddedIpv4(bare);
    const allowed = this.#allowed.check(bare, 'ipv6');
    if (!embedded) return allowed || !this.#internal.check(bare, 'ipv6');
    if (embedded.embedding === 'mapped' || embedded.embedding === 'compatible') return allowed || this.#permitsIpv4(embedded.ipv4);
    return this.#permitsIpv4(embedded.ipv4) && (allowed || !this.#internal.check(bare, 'ipv6'));
  }

  #permitsIpv4(address: string): boolean {
    return this.#allowed.check(address, 'ipv4') || !this.#internal.check(address, 'ipv4');
  }

  /** Why a call to `url` is refused before any lookup (its scheme, or an IP literal host), or undefined. */
  refusalOf(url: URL): SsrfRefusedError | undefined {
    const scheme = url.protocol.replace(/:$/, '').toLowerCase();
    if (!this.#schemes.has(scheme)) return new SsrfRefusedError(`disallowed scheme '${scheme}'`);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !this.permits(host)) return new SsrfRefusedError(`${host} is not a permitted address`);
    return undefined;
  }

  /**
   * Whether a call to `url` would be made: `refusalOf`, then for a name every address it resolves
   * to now. Not a substitute for the connect-time check (the answer may change), but what a
   * listing of addresses for someone else can go by.
   */
  check(url: URL): Promise<SsrfRefusedError | undefined> {
    const refusal = this.refusalOf(url);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (refusal || isIP(host) !== 0) return Promise.resolve(refusal);
    return new Promise((resolve) => {
      this.resolve(host, (error, addresses) => {
        if (error || addresses.length === 0) return resolve(new SsrfRefusedError(`${host} does not resolve${error ? ` (${error.code ?? error.message})` : ''}`));
        const blocked = addresses.find((entry) => !this.permits(entry.address));
        resolve(blocked ? new SsrfRefusedError(`${host} resolves to ${blocked.address}, which is not permitted`) : undefined);
      });
    });
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
