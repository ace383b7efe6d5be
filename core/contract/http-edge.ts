import type { IncomingMessage, Server, ServerOptions } from 'node:http';

/** Decides whether a browser page at `origin` may make Vigil's browser users act (e.g. the `cors` plugin's allowed origins). */
export type OriginTrust = (origin: string) => boolean;

/** Why a request is not served for its `Host`: the status and the message of its JSON error. */
export interface HostRefusal {
  readonly status: 400 | 421;
  readonly message: string;
}

/** The `server` section, as validated: the HTTP server's own limits (docs/security.md). */
export interface ServerSettings {
  readonly 'max-connections': number;
  readonly 'max-connections-per-address': number;
  readonly 'per-address-exempt': readonly string[];
  readonly 'headers-timeout': number;
  readonly 'allowed-hosts': readonly string[];
}

/**
 * The guards at the edge of the kernel's HTTP server: what a client without credentials can hold
 * (connections, slow headers), which `Host` names are answered (DNS rebinding), which pages may
 * make a browser act (cross-site request forgery), and the JSON error for what Node refuses before
 * any routing (a malformed request, an `Expect`, CONNECT). The kernel creates the server and routes;
 * the composition root (`bin/`) builds these guards from the `server` section once plugins are
 * set up (the http-edge kit), and the kernel hands a reloaded section to `reload`.
 */
export interface HttpEdge {
  /** The options of `http.createServer` the limits need from the start (Node reads them only there). */
  readonly serverOptions: Pick<ServerOptions, 'headersTimeout' | 'connectionsCheckingInterval'>;
  /** Bounds the connections of `server` and answers what Node refuses before routing; called before it listens. */
  guard(server: Server): void;
  /** Why a request with this `Host` header is not served, or undefined to serve it: asked before anything else. */
  hostRefusal(header: string | undefined): HostRefusal | undefined;
  /** Why an unsafe request is refused as cross-site request forgery, or undefined: asked before every hook and route. */
  crossSiteRefusal(req: IncomingMessage, trusted: readonly OriginTrust[]): string | undefined;
  /** Applies a reloaded `server` section to new connections and requests; those already open stay. */
  reload(settings: ServerSettings): void;
}
