import { request } from 'node:http';

/** How a response that was open ended, once its connection is gone. */
export interface Ending {
  /** The body arrived whole: a chunked stream's last chunk, or all of a declared length. False when it was cut. */
  readonly clean: boolean;
  readonly bytes: number;
}

export interface Watched {
  readonly status: number;
  /** Resolves when the client's socket has closed, whichever way; never rejects. */
  readonly closed: Promise<Ending>;
  destroy(): void;
}

/**
 * A GET left open (an event stream, a long download) that reads everything and reports how it
 * ended. Resolves once `ready` says the body has begun (a stream's first ping, a download's
 * first bytes), so the caller knows the response is in flight before it acts.
 */
export function watchResponse(port: number, path: string, headers: Record<string, string>, ready: (chunk: Buffer, total: number) => boolean): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers }, (res) => {
      let bytes = 0;
      let started = false;
      let complete = false;
      const closed = new Promise<Ending>((done) => {
        res.socket.once('close', () => done({ clean: complete, bytes }));
      });
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (started || !ready(chunk, bytes)) return;
        started = true;
        resolve({ status: res.statusCode ?? 0, closed, destroy: () => req.destroy() });
      });
      res.on('end', () => {
        complete = res.complete;
      });
      // A cut body is what some of these wait for: it is reported through `closed`, not thrown.
      res.on('error', () => undefined);
      res.on('close', () => {
        if (!started) reject(new Error(`${path}: ${res.statusCode} ended before it began (${bytes} bytes)`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}
