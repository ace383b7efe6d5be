import { createServer } from 'node:http';
import { ACTUATOR_V3 } from '../../support/fake-actuator.js';
import { listenLocal, type LocalServer } from '../../support/local-server.js';

const CHUNK = Buffer.alloc(64 * 1024, 0x5a);

/**
 * An instance whose `heapdump` is a download far too big to finish during a test: it declares
 * `totalBytes` and sends one 64 KiB chunk every `intervalMs`, so a download through the proxy is
 * surely still in flight whenever the test acts. It counts downloads begun and those whose
 * connection was closed under them.
 */
export class DripInstance {
  downloadsStarted = 0;
  downloadsClosed = 0;
  #listening: LocalServer | undefined;

  private constructor() {}

  static async start(totalBytes: number, intervalMs: number): Promise<DripInstance> {
    let drip: DripInstance;
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/actuator') {
        const links = Object.fromEntries(['health', 'heapdump'].map((id) => [id, { href: `${drip.managementUrl}/${id}`, templated: false }]));
        res.writeHead(200, { 'content-type': ACTUATOR_V3 }).end(JSON.stringify({ _links: links }));
      } else if (path === '/actuator/health') {
        res.writeHead(200, { 'content-type': ACTUATOR_V3 }).end('{"status":"UP"}');
      } else if (path === '/actuator/heapdump') {
        drip.downloadsStarted += 1;
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(totalBytes) });
        res.write(CHUNK);
        let sent = CHUNK.length;
        const timer = setInterval(() => {
          if (sent + CHUNK.length > totalBytes) return;
          sent += CHUNK.length;
          res.write(CHUNK);
        }, intervalMs);
        res.on('error', () => undefined);
        res.once('close', () => {
          clearInterval(timer);
          drip.downloadsClosed += 1;
        });
      } else {
        res.writeHead(404).end();
      }
    });
    drip = new DripInstance();
    drip.#listening = await listenLocal(server);
    return drip;
  }

  get managementUrl(): string {
    return `http://127.0.0.1:${this.#listening!.port}/actuator`;
  }

  get healthUrl(): string {
    return `${this.managementUrl}/health`;
  }

  close(): Promise<void> {
    return this.#listening!.close();
  }
}
