/**
 * # The http-edge kit
 *
 * The guards at the edge of the kernel's HTTP server, from the `server` section: connection
 * limits (`max-connections`, `max-connections-per-address`, `headers-timeout`) and the open-file
 * warning, the `Host` check against DNS rebinding (`allowed-hosts`), the cross-site request
 * forgery check, and the JSON errors for what Node refuses before routing. The kernel creates the
 * server and routes; it only knows the `HttpEdge` interface of the plugin contract, and the
 * composition root (`bin/kernel-parts.ts`) builds the guards and hands them over.
 * `isHostPattern` is the grammar of an `allowed-hosts` entry, which the config validates. Not a
 * published export: a plugin adds allowed hosts through `ALLOWED_HOSTS` and trusted origins
 * through `ctx.http.trustOrigin`. The kit uses only the plugin contract (`vigil/plugin`).
 */
export { httpEdge, type HttpEdgeContext } from './edge.js';
export { isHostPattern } from './allowed-hosts.js';
