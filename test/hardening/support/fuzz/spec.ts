import type { Route } from '../full-kernel.js';

/** How a request authenticates. */
export type Auth =
  | { readonly kind: 'admin' | 'token' | 'client' | 'none' | 'wrong-password' | 'unknown-user' | 'wrong-token' }
  /** An `Authorization` value that is not valid credentials syntax; `bearer` when it names that scheme. */
  | { readonly kind: 'malformed'; readonly value: string; readonly bearer: boolean };

/** An `Origin` from a fixed list whose verdict is known (see arbitraries). */
export interface Origin {
  readonly value: string;
  readonly allowed: boolean;
}

export type Cors =
  | { readonly kind: 'none' }
  | { readonly kind: 'actual'; readonly origin: Origin }
  | { readonly kind: 'preflight'; readonly origin: Origin; readonly requestMethod: string; readonly requestHeaders: string | null };

/**
 * At most one defect per request, below HTTP semantics: the bytes are not a valid HTTP/1.1
 * request (or ask for something Node refuses before any route runs).
 */
export type Defect =
  | { readonly kind: 'target-byte'; readonly byte: number }
  | { readonly kind: 'header-name-byte'; readonly byte: number }
  | { readonly kind: 'header-value-byte'; readonly byte: number }
  | { readonly kind: 'huge-headers' }
  | { readonly kind: 'bad-method'; readonly method: string }
  | { readonly kind: 'bad-version'; readonly version: string }
  | { readonly kind: 'bad-content-length'; readonly value: string }
  | { readonly kind: 'length-and-chunked' }
  | { readonly kind: 'no-host' }
  | { readonly kind: 'expectation'; readonly value: string };

/** One generated request, in parts the oracle can reason about; `render` makes the bytes. */
export interface RequestSpec {
  /** The router entry the request was built from (for coverage counts; the oracle matches anew). */
  readonly route: Route;
  readonly method: string;
  /** The path exactly as sent: params and the proxy tail already rendered, maybe percent-encoded or malformed. */
  readonly path: string;
  /** `''` or the raw query including `?`. */
  readonly query: string;
  readonly auth: Auth;
  readonly accept: string | null;
  readonly contentType: string | null;
  readonly cors: Cors;
  /** Further headers whose bytes are valid (odd, long, Unicode in obs-text...). */
  readonly extras: readonly (readonly [string, string])[];
  /** undefined: no body and no framing headers. */
  readonly body: Buffer | undefined;
  readonly framing: 'length' | 'chunked';
  readonly defect: Defect | null;
}

export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The bytes Node counts against MAX_HEADER_BYTES in a rendered request: the request target and
 * every header name and value, without the method, the version or any separator (measured: a
 * request whose count reaches the limit is answered 431, one byte less is read).
 */
export function countedHeadBytes(request: Buffer): number {
  const end = request.indexOf('\r\n\r\n');
  const lines = request.subarray(0, end < 0 ? request.length : end).toString('latin1').split('\r\n');
  const requestLine = lines[0] ?? '';
  let counted = Math.max(0, requestLine.lastIndexOf(' ') - requestLine.indexOf(' ') - 1);
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    counted += colon < 0 ? line.length : colon + line.slice(colon + 1).trim().length;
  }
  return counted;
}

/** The request's bytes. Header values are UTF-8 (Node reads them as latin1 "obs-text"). */
export function render(spec: RequestSpec, port: number, credentials: (auth: Auth) => string | undefined): Buffer {
  const { defect } = spec;
  const method = defect?.kind === 'bad-method' ? defect.method : spec.method;
  const version = defect?.kind === 'bad-version' ? defect.version : 'HTTP/1.1';
  let target = Buffer.from(`${spec.path}${spec.query}`, 'latin1');
  if (defect?.kind === 'target-byte') target = Buffer.concat([target.subarray(0, 1), Buffer.from([defect.byte]), target.subarray(1)]);

  const headers: [string | Buffer, string | Buffer][] = [];
  if (defect?.kind !== 'no-host') headers.push(['Host', `127.0.0.1:${port}`]);
  headers.push(['Connection', 'close']);
  const authorization = credentials(spec.auth);
  if (authorization !== undefined) headers.push(['Authorization', authorization]);
  if (spec.accept !== null) headers.push(['Accept', spec.accept]);
  if (spec.contentType !== null) headers.push(['Content-Type', spec.contentType]);
  if (spec.cors.kind !== 'none') headers.push(['Origin', spec.cors.origin.value]);
  if (spec.cors.kind === 'preflight') {
    headers.push(['Access-Control-Request-Method', spec.cors.requestMethod]);
    if (spec.cors.requestHeaders !== null) headers.push(['Access-Control-Request-Headers', spec.cors.requestHeaders]);
  }
  // Node honours `100-continue` anywhere in Expect; a second Expect would hide the defect.
  for (const [name, value] of spec.extras) if (!(defect?.kind === 'expectation' && name === 'Expect')) headers.push([name, value]);
  if (defect?.kind === 'header-name-byte') headers.push([Buffer.from([0x58, defect.byte, 0x59]), 'v']);
  if (defect?.kind === 'header-value-byte') headers.push(['X-Fuzz', Buffer.from([0x61, defect.byte, 0x62])]);
  if (defect?.kind === 'huge-headers') headers.push(['X-Huge', 'h'.repeat(MAX_HEADER_BYTES + 1024)]);
  if (defect?.kind === 'expectation') headers.push(['Expect', defect.value]);

  let body = spec.body;
  if (defect?.kind === 'bad-content-length') {
    headers.push(['Content-Length', defect.value]);
  } else if (defect?.kind === 'length-and-chunked') {
    headers.push(['Content-Length', '5'], ['Transfer-Encoding', 'chunked']);
    body = Buffer.from('0\r\n\r\n');
  } else if (body !== undefined && spec.framing === 'chunked') {
    headers.push(['Transfer-Encoding', 'chunked']);
    body = body.length === 0 ? Buffer.from('0\r\n\r\n') : Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
  } else if (body !== undefined) {
    headers.push(['Content-Length', String(body.length)]);
  }

  const lines: Buffer[] = [Buffer.from(`${method} `, 'latin1'), target, Buffer.from(` ${version}\r\n`, 'latin1')];
  for (const [name, value] of headers) {
    lines.push(typeof name === 'string' ? Buffer.from(name, 'latin1') : name, Buffer.from(': '), typeof value === 'string' ? Buffer.from(value, 'utf8') : value, Buffer.from('\r\n'));
  }
  lines.push(Buffer.from('\r\n'));
  if (body !== undefined) lines.push(body);
  return Buffer.concat(lines);
}
