/**
 * How an IPv6 address carries an IPv4 one:
 * - `mapped` (`::ffff:a.b.c.d`) and `compatible` (`::a.b.c.d`, deprecated) are that IPv4 address
 *   on the wire: a dual-stack socket connects to it;
 * - `nat64` (`64:ff9b::a.b.c.d`, RFC 6052) and `6to4` (`2002:AABB:CCDD::/48`, RFC 3056, the IPv4
 *   address in bits 16-48) reach it through a translator or relay, which may well sit inside
 *   the network the address points at.
 */
export type Ipv4Embedding = 'mapped' | 'compatible' | 'nat64' | '6to4';

export interface EmbeddedIpv4 {
  readonly ipv4: string;
  readonly embedding: Ipv4Embedding;
}

/**
 * The IPv4 address inside an IPv6 address, or undefined when there is none (or `address` is not
 * IPv6). `::` and `::1` are the unspecified and loopback addresses, not IPv4-compatible ones.
 */
export function embeddedIpv4(address: string): EmbeddedIpv4 | undefined {
  const groups = ipv6Groups(address);
  if (!groups) return undefined;
  const zeroUntil = (end: number) => groups.slice(0, end).every((group) => group === 0);
  const lowIpv4 = () => ipv4Of(groups[6]!, groups[7]!);
  if (zeroUntil(5) && groups[5] === 0xffff) return { ipv4: lowIpv4(), embedding: 'mapped' };
  if (zeroUntil(6) && (groups[6] !== 0 || groups[7]! > 1)) return { ipv4: lowIpv4(), embedding: 'compatible' };
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) return { ipv4: lowIpv4(), embedding: 'nat64' };
  if (groups[0] === 0x2002) return { ipv4: ipv4Of(groups[1]!, groups[2]!), embedding: '6to4' };
  return undefined;
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted quad read as two
 * groups, a zone id ignored), or undefined when it is not one.
 */
export function ipv6Groups(address: string): number[] | undefined {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (half: string): number[] | undefined => {
    if (half === '') return [];
    const groups: number[] = [];
    const parts = half.split(':');
    for (let i = 0; i < parts.length; i += 1) {
      const part = parts[i]!;
      if (i === parts.length - 1 && part.includes('.')) {
        const octets = part.split('.');
        if (octets.length !== 4 || octets.some((octet) => !/^\d{1,3}$/.test(octet) || Number(octet) > 255)) return undefined;
        const [a, b, c, d] = octets.map(Number) as [number, number, number, number];
        groups.push((a << 8) | b, (c << 8) | d);
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
        groups.push(parseInt(part, 16));
      } else {
        return undefined;
      }
    }
    return groups;
  };
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}
