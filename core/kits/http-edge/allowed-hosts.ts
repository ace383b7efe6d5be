import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { HostRefusal } from '../../plugin-api.js';

/** A DNS label as host names use it (underscores too: some internal names have them). */
const LABEL = '[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?';
const NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
/** The longest a DNS name can be. */
const MAX_NAME = 253;
/** How many distinct allowed `Host` values are remembered before the memo starts over. */
const SERVED_MEMO = 64;

export interface AllowedHostsOptions {
  /** `server.allowed-hosts`: names, `*.domain` patterns, IP addresses, or `*`. */
  readonly configured: readonly string[];
  /** The address or name the daemon listens on (`host`). */
  readonly listenHost: string;
  /** What plugins contribute (`ALLOWED_HOSTS`), asked again on each miss so that it follows their reloads. */
  readonly contributed: () => readonly string[];
}

/**
 * Which `Host` values Vigil answers to: its defence against DNS rebinding. A page on
 * `evil.example` whose name is later pointed at 127.0.0.1 (or at any address of the machine) can
 * make the browser send requests here that the browser thinks go to evil.example, and read the
 * answers; they still say `Host: evil.example`, which is refused with 421.
 *
 * Always allowed (as Vite's dev server does): `localhost` and `*.localhost` (browsers resolve them
 * to loopback themselves), every IP address (an address in the URL involves no DNS, so nothing to
 * rebind; this also covers the machine's own addresses, in containers and on hosts alike), the
 * machine's host name, and the `host` the daemon listens on. Then the configured list and what
 * plugins contribute; `*` in the list allows every host.
 */
export class AllowedHosts {
  #all = false;
  #names = new Set<string>();
  #domains: string[] = [];
  /**
   * `Host` values already served by the rules only `configure` changes (addresses, localhost, the
   * configured names): every request of a client repeats its `Host`, and parsing it again is a
   * measurable share of a heartbeat. Bounded; emptied on `configure`. Names allowed only because a
   * plugin contributes them or the machine is called so are never kept: those may change.
   */
  readonly #served = new Set<string>();

  constructor(private readonly options: AllowedHostsOptions) {
    this.configure(options.configured);
  }

  /** Replaces the configured list (a reload); the built-in names stay. */
  configure(configured: readonly string[]): void {
    const patterns = configured.map(normaliseHostPattern).filter((pattern): pattern is string => pattern !== undefined);
    this.#all = patterns.includes('*');
    const listen = normaliseHostPattern(this.options.listenHost);
    this.#names = new Set(patterns.filter((pattern) => !pattern.startsWith('*')));
    if (listen !== undefined && !listen.startsWith('*')) this.#names.add(listen);
    // `*.example.com` matches any name ending in `.example.com`, not example.com itself.
    this.#domains = patterns.filter((pattern) => pattern.startsWith('*.')).map((pattern) => pattern.slice(1));
    this.#served.clear();
  }

  /** Why a request with this `Host` header is not served, or undefined to serve it. */
  refusal(header: string | undefined): HostRefusal | undefined {
    // HTTP/1.0 may omit Host (the router refuses a missing one in HTTP/1.1); a browser always sends one.
    if (this.#all || header === undefined || header === '' || this.#served.has(header)) return undefined;
    const host = hostOfHeader(header);
    if (host === undefined) return { status: 400, message: 'the Host header is not a host name or IP address with an optional port' };
    if (this.#allowedByConfig(host)) {
      if (this.#served.size >= SERVED_MEMO) this.#served.clear();
      this.#served.add(header);
      return undefined;
    }
    if (this.#allowedForNow(host)) return undefined;
    return { status: 421, message: `this server does not answer to the host ${JSON.stringify(host)}; add it to server.allowed-hosts if it should` };
  }

  allows(header: string | undefined): boolean {
    return this.refusal(header) === undefined;
  }

  /** Allowed by what only `configure` changes. */
  #allowedByConfig(host: string): boolean {
    if (isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost') || this.#names.has(host)) return true;
    return this.#domains.some((domain) => host.endsWith(domain));
  }

  /** Allowed by what can change while running: the machine's name, what plugins contribute. */
  #allowedForNow(host: string): boolean {
    // Read on a miss only: the host name can change while running, and so can a plugin's config.
    if (host === hostname().toLowerCase().replace(/\.$/, '')) return true;
    return this.options.contributed().some((name) => normaliseHostPattern(name) === host);
  }
}

/**
 * The host a `Host` header names: lower case, without the port, the brackets of an IPv6 address
 * or a trailing dot; undefined when the value is not `host[:port]`.
 */
export function hostOfHeader(value: string): string | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/.exec(value);
  if (!match) return undefined;
  if (match[1] !== undefined) return isIP(match[1]) === 6 ? match[1].toLowerCase() : undefined;
  const host = match[2]!.toLowerCase().replace(/\.$/, '');
  return host.length <= MAX_NAME && (isIP(host) === 4 || NAME.test(host)) ? host : undefined;
}

/** An entry of `server.allowed-hosts` (or a contributed name) in the form `hostOfHeader` gives, or undefined when it is none. */
export function normaliseHostPattern(value: string): string | undefined {
  const text = value.trim().toLowerCase();
  if (text === '*') return text;
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(bare) !== 0) return bare;
  const wildcard = bare.startsWith('*.');
  const name = (wildcard ? bare.slice(2) : bare).replace(/\.$/, '');
  if (name.length > MAX_NAME || !NAME.test(name)) return undefined;
  return wildcard ? `*.${name}` : name;
}

/** For config validation: a host name, `*.domain`, an IP address, or `*`. */
export function isHostPattern(value: string): boolean {
  return normaliseHostPattern(value) !== undefined;
}
