import { connect } from 'node:net';

/** One HTTP/1.1 response, read off a raw socket. */
export interface RawResponse {
  /** 0 when the server closed the connection without answering. */
  readonly status: number;
  /** Lower-case names; repeated headers joined with ', ' (set-cookie and www-authenticate too). */
  readonly headers: Readonly<Record<string, string>>;
  /** Every value of a header, in order (for `www-authenticate`, which may come twice). */
  readonly headerList: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** The answer was a `text/event-stream`: the socket was closed once the headers were in. */
  readonly stream: boolean;
}

export interface RawOptions {
  /** Whether the request was a HEAD (its response has headers only). */
  readonly head?: boolean;
  /** Fails the request (and the test) instead of hanging. */
  readonly timeoutMs?: number;
}

/**
 * Sends `bytes` exactly as given, on a fresh connection, and parses the one response. Node's
 * own client refuses what a fuzzer must send (control bytes in a header or a path, broken
 * framing, missing Host), so requests are written by hand. The socket is never half-closed:
 * Node servers take a FIN before the response as an aborted request.
 */
export function sendRaw(port: number, bytes: Buffer, options: RawOptions = {}): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`no complete response within ${timeoutMs} ms`)), timeoutMs);
    const finish = (response: RawResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(response);
    };
    function fail(error: Error) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    }
    const attempt = (closed: boolean) => {
      let parsed: RawResponse | undefined;
      try {
        parsed = parseResponse(buffer, options.head === true, closed);
      } catch (error) {
        fail(error as Error);
        return;
      }
      if (parsed) finish(parsed);
      else if (closed) finish({ status: 0, headers: {}, headerList: [], body: buffer, stream: false });
    };
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      attempt(false);
    });
    // A reset after (or instead of) the answer: whatever arrived is the answer.
    socket.on('error', () => attempt(true));
    socket.on('close', () => attempt(true));
  });
}

/** The response in `buffer`, once complete; interim 1xx responses are skipped. */
function parseResponse(buffer: Buffer, head: boolean, closed: boolean): RawResponse | undefined {
  let offset = 0;
  for (;;) {
    const end = buffer.indexOf('\r\n\r\n', offset);
    if (end === -1) return undefined;
    const lines = buffer.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? NaN);
    if (!Number.isInteger(status)) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
    const headerList = lines.slice(1).map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
    });
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of headerList) headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    const rest = buffer.subarray(bodyStart);
    const base = { status, headers, headerList };
    const stream = (headers['content-type'] ?? '').startsWith('text/event-stream');
    if (head || status === 204 || status === 304) return { ...base, body: Buffer.alloc(0), stream };
    if (stream) return { ...base, body: rest, stream };
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const body = dechunk(rest);
      return body ? { ...base, body, stream: false } : undefined;
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      return rest.length >= length ? { ...base, body: rest.subarray(0, length), stream: false } : undefined;
    }
    return closed ? { ...base, body: rest, stream: false } : undefined;
  }
}

/** The decoded body once the last chunk is in, else undefined. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}
