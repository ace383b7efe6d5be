/**
 * # The outbound kit (`vigil/outbound`)
 *
 * The policy behind `ctx.outbound`, which every call from Vigil to an instance goes through:
 * credentials only to the instance's own origins, SSRF protection (`ssrf-protection`) checked
 * before the call and again inside each connection, and Vigil's User-Agent. The kernel only knows
 * the `Outbound` interface of the plugin contract; the composition root (`bin/`) builds this
 * policy from the kernel's `ssrf-protection` and `instance-auth` keys and hands it over. The kit
 * uses only the plugin contract (`vigil/plugin`, `vigil/domain`).
 */
export { OutboundPolicy, type OutboundSettings } from './policy.js';
export { SsrfGuard, SsrfRefusedError, type Resolver, type SsrfSettings } from './ssrf-guard.js';
export { embeddedIpv4, type EmbeddedIpv4, type Ipv4Embedding } from './embedded-ipv4.js';
export { instanceAuthorization, type InstanceAuthSettings } from './credentials.js';
