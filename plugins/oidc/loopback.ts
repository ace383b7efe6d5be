import { isIP } from 'node:net';

/**
 * Whether a URL's host name is this machine's loopback (`localhost`, 127.0.0.0/8, `[::1]`): the
 * only place plain http is good enough for single sign-on, because nothing leaves the machine.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && (host === '::1' || host === '0:0:0:0:0:0:0:1');
}
