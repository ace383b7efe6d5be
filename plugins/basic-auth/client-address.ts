import { BlockList, isIP } from 'node:net';
import { parseCidr } from '../../core/plugin-api.js';

/** `basic-auth.trusted-proxies` as a set to test peers against; entries were validated with the config. */
export function parseTrustedProxies(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of cidrs) {
    const cidr = parseCidr(entry);
    if (cidr) list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list;
}

/**
 * The address a request comes from, for the failure budget. The socket's peer, unless the peer is
 * a trusted proxy: then `X-Forwarded-For`, read from the right (each proxy appends the peer it
 * saw), skipping trusted hops, so the first untrusted address is the client. What is left of it
 * was written by the client and is never believed: prepending an address buys nothing. An entry
 * that is no address stops the walk at the last hop known to be real.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: BlockList): string | undefined {
  if (peer === undefined || forwardedFor === undefined || !isTrusted(peer, trusted)) return peer;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const address = addressOf(hops[i]!.trim());
    if (address === undefined) return client;
    client = address;
    if (!isTrusted(address, trusted)) return address;
  }
  return client;
}

function isTrusted(address: string, trusted: BlockList): boolean {
  try {
    return trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  } catch {
    return false; // not an address BlockList can read (e.g. with a zone index): not trusted
  }
}

/** An X-Forwarded-For entry's address: bare, `[v6]` or `[v6]:port`, `v4:port`; undefined for anything else. */
function addressOf(hop: string): string | undefined {
  if (isIP(hop) !== 0) return hop;
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
  if (bracketed) return isIP(bracketed[1]!) === 6 ? bracketed[1] : undefined;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  return withPort && isIP(withPort[1]!) === 4 ? withPort[1] : undefined;
}
