import { request } from 'node:http';

/** One whole response as the client received it: every header line and every body byte. */
export interface Captured {
  readonly status: number;
  /** Header name/value pairs exactly as sent (`rawHeaders`), repeated headers included. */
  readonly headerLines: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

export interface CaptureOptions {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /**
   * For an answer that is an event stream: read until a message with an `id:` at least this
   * high arrived, then close it (a stream never ends on its own). Without it a stream fails the capture.
   */
  readonly streamUntilId?: number;
  /** Fails instead of hanging; default 10 s. */
  readonly timeoutMs?: number;
}

/**
 * Sends one request on a fresh connection and keeps everything that came back, so a test can
 * search headers and body alike. Node's client (not fetch) so that HEAD, OPTIONS with a body and
 * streams behave exactly as on the wire.
 */
export function capture(port: number, options: CaptureOptions): Promise<Captured> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const label = `${options.method} ${options.path}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`${label}: no complete answer within ${timeoutMs} ms`)), timeoutMs);
    const req = request({ host: '127.0.0.1', port, method: options.method, path: options.path, headers: options.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      const headerLines: [string, string][] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) headerLines.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
      const done = () => finish({ status: res.statusCode ?? 0, headerLines, body: Buffer.concat(chunks) });
      const stream = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
      if (stream && options.streamUntilId === undefined) {
        fail(new Error(`${label}: an event stream was not expected`));
        return;
      }
      let text = '';
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (!stream) return;
        text += chunk.toString('utf8');
        const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
        if (ids.some((id) => id >= options.streamUntilId!)) done();
      });
      res.on('end', () => (stream ? fail(new Error(`${label}: the stream ended before id ${options.streamUntilId}`)) : done()));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(options.body);

    function finish(captured: Captured): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(captured);
    }
    function fail(error: Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(error);
    }
  });
}
