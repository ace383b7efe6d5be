import { isIPv6 } from 'node:net';

/**
 * The key a client address is counted under, wherever one client's share is limited (its
 * connections, its failed logins). IPv4, also when written as IPv4-mapped IPv6, is the address
 * itself; IPv6 is its /64 prefix, the block one subscriber usually holds, so a single host cannot
 * get a fresh share per address by cycling through its 2^64.
 */
export function addressKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || remoteAddress === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  if (!isIPv6(remoteAddress)) return remoteAddress;
  return `${expandIPv6(remoteAddress.replace(/%.*$/, '')).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros (an embedded IPv4 tail becomes two groups). */
function expandIPv6(address: string): string[] {
  const withoutV4 = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`);
  const [head = '', tail] = withoutV4.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
