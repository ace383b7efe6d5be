import type { Server } from 'node:http';
import { BlockList, isIP, type Socket } from 'node:net';
import { OccasionalWarning, addressKey, parseCidr, type Logger } from '../../plugin-api.js';

/** The `server` keys that bound connections, in the units the server uses. */
export interface ConnectionLimitSettings {
  /** `max-connections`: open connections at most, all clients together. */
  readonly maxConnections: number;
  /** `max-connections-per-address`: open connections at most from one client address (IPv6: one /64); 0 is no limit. */
  readonly perAddress: number;
  /** `per-address-exempt`: CIDRs the per-address limit does not apply to. */
  readonly exempt: readonly string[];
  /** `headers-timeout`: a request whose headers are not all in after this is answered 408 and closed. */
  readonly headersTimeoutMs: number;
}

const WARN_EVERY_MS = 60_000;

/**
 * Keeps clients without credentials from holding every file descriptor: a connection costs one
 * from accept on, before anything is authenticated. Slow-header connections (slowloris) are
 * closed after `headersTimeout`; past `maxConnections` Node refuses new connections; past
 * `perAddress` from one address this refuses them, so one client cannot take the whole
 * `maxConnections` and others keep being served. A refused connection is closed at once, before
 * a byte is read: no answer could be parsed yet. Each kind of refusal is logged at most once a
 * minute, with how many went unlogged.
 */
export class ConnectionLimits {
  /** Open connections by address key. Bounded by the open connections, so by `maxConnections`. */
  readonly #open = new Map<string, number>();
  #settings!: ConnectionLimitSettings;
  #exempt = new BlockList();
  readonly #perAddressRefused: OccasionalWarning;
  readonly #totalRefused: OccasionalWarning;

  constructor(private readonly server: Server, settings: ConnectionLimitSettings, log: Logger) {
    this.#perAddressRefused = new OccasionalWarning(log, WARN_EVERY_MS);
    this.#totalRefused = new OccasionalWarning(log, WARN_EVERY_MS);
    this.apply(settings);
    // Before the HTTP server's own listener, so a refused socket never gets a parser.
    server.prependListener('connection', (socket: Socket) => this.#admit(socket));
    server.on('drop', (dropped?: { remoteAddress?: string }) => this.#totalRefused.note(() =>
      `connection from ${addressKey(dropped?.remoteAddress)} refused: ${this.#settings.maxConnections} connections are open (server.max-connections)`));
  }

  /** Applies new limits (a reload); connections already open stay. */
  apply(settings: ConnectionLimitSettings): void {
    this.#settings = settings;
    this.server.maxConnections = settings.maxConnections;
    this.server.headersTimeout = settings.headersTimeoutMs;
    const exempt = new BlockList();
    for (const entry of settings.exempt) {
      const cidr = parseCidr(entry);
      if (cidr) exempt.addSubnet(cidr.address, cidr.prefix, cidr.family);
    }
    this.#exempt = exempt;
  }

  #admit(socket: Socket): void {
    const address = socket.remoteAddress;
    if (address === undefined) return; // already gone
    const key = addressKey(address);
    const open = this.#open.get(key) ?? 0;
    const { perAddress } = this.#settings;
    if (perAddress > 0 && open >= perAddress && !this.#isExempt(address)) {
      this.#perAddressRefused.note(() => `connection from ${key} refused: it has ${open} open (server.max-connections-per-address)`);
      socket.destroy();
      return;
    }
    this.#open.set(key, open + 1);
    socket.once('close', () => {
      const left = (this.#open.get(key) ?? 1) - 1;
      if (left > 0) this.#open.set(key, left);
      else this.#open.delete(key);
    });
  }

  #isExempt(address: string): boolean {
    try {
      return this.#exempt.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
    } catch {
      return false; // an address BlockList cannot read (a zone index) is simply not exempt
    }
  }
}

/** How often Node looks for connections past `headersTimeout`: they live at most that much longer. */
export function connectionsCheckingInterval(headersTimeoutMs: number): number {
  return Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 2)));
}
