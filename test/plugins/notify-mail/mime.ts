/** A MIME entity: unfolded headers (lower-case names) and its decoded body, or its parts. */
export interface MimePart {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly parts: MimePart[];
}

/**
 * Just enough MIME to check a mail part by part: header unfolding, `multipart/*` boundaries, and
 * quoted-printable and base64 transfer encodings. Test code, not a mail parser.
 */
export function parseMime(raw: string): MimePart {
  const text = raw.replace(/\r\n/g, '\n');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const rest = split < 0 ? '' : text.slice(split + 2);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (boundary && /^multipart\//i.test(headers['content-type'] ?? '')) {
    const sections = rest.split(`--${boundary}`).slice(1);
    const parts = sections.filter((section) => !section.startsWith('--')).map((section) => parseMime(section.replace(/^\n/, '')));
    return { headers, body: '', parts };
  }
  return { headers, body: decode(rest.replace(/\n$/, ''), headers['content-transfer-encoding'] ?? '7bit'), parts: [] };
}

function decode(body: string, encoding: string): string {
  if (/^base64$/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/^quoted-printable$/i.test(encoding)) {
    const bytes = body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** Decodes RFC 2047 encoded words in a header value (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`). */
export function decodeHeader(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, kind: string, data: string) => (kind.toUpperCase() === 'B'
    ? Buffer.from(data, 'base64').toString('utf8')
    : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8')));
}
