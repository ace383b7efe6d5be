import { defineToken } from './tokens.js';

/**
 * Host names a plugin knows Vigil is reached under, added to `server.allowed-hosts` (the kernel
 * answers 421 to a request whose `Host` names any other, its defence against DNS rebinding).
 * `notify` contributes the host of its `base-url`, the dashboard address its messages link to.
 */
export interface AllowedHostsSource {
  /**
   * The names now: host names or IP addresses, as in a URL (`status.example.org`, `[fd00::1]`),
   * without a port. Asked only for a `Host` that nothing else allows, so it may follow a reload;
   * keep it cheap and synchronous. A value that is not a host name is ignored.
   */
  hosts(): readonly string[];
}

export const ALLOWED_HOSTS = defineToken<AllowedHostsSource>('vigil.allowed-hosts');
