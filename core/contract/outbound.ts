import type { Agent, Dispatcher } from 'undici';
import type { Instance } from '../store/types.js';

/**
 * The policy for calls from Vigil to instances (`ctx.outbound`), the one place every such call
 * goes through whichever plugin makes it. Configured by the kernel keys `ssrf-protection` and
 * `instance-auth`; implemented by `vigil/outbound`.
 */
export interface Outbound {
  /** `Vigil/<version> (node <node-id>)`: sent on every call, so an instance's logs tell who checked it. */
  readonly userAgent: string;
  /** Whether `url` is on the origin of one of the instance's registration URLs (health, management, service). */
  isOwnOrigin(instance: Instance, url: string | URL): boolean;
  /**
   * The `Authorization` value for a call to `url` for this instance (metadata credentials, then
   * `instance-auth`), or undefined: credentials are never sent to an origin other than the
   * instance's own registration URLs, whatever its endpoints point at.
   */
  authorizationFor(instance: Instance, url: string | URL): string | undefined;
  /**
   * An undici agent for calls to instances: every request through it gets Vigil's User-Agent,
   * and with `ssrf-protection` on it is refused (an error whose `code` is `SSRF_REFUSED`) when its
   * scheme or address is not permitted, checked again at connect time after DNS resolution.
   */
  createAgent(options?: Agent.Options): Dispatcher;
  /**
   * Why this policy would refuse a call from Vigil to `url` (with `ssrf-protection` on: its scheme,
   * or an address the host is or resolves to; a name that does not resolve is refused too), or
   * undefined when Vigil may call it. For a plugin that hands an instance's address to another
   * program (`prometheus-sd`): what Vigil may not call, no one should be sent to on its word.
   */
  refusalOf(url: string | URL): Promise<Error | undefined>;
}
