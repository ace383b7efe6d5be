import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { ACTUATOR_V3 } from '../../support/fake-actuator.js';
import { listenLocal, type LocalServer } from '../../support/local-server.js';

const CHUNK = 64 * 1024;

/** The bytes of a download: a pattern that differs per 64 KiB chunk, so a lost or repeated chunk changes the hash. */
function chunkOf(index: number): Buffer {
  const chunk = Buffer.alloc(CHUNK);
  for (let offset = 0; offset < CHUNK; offset += 4) chunk.writeUInt32BE((index * CHUNK + offset) >>> 0, offset);
  return chunk;
}

/** SHA-256 of a download of `bytes` bytes (a multiple of 64 KiB). */
export function downloadSha256(bytes: number): string {
  const hash = createHash('sha256');
  for (let index = 0; index < bytes / CHUNK; index += 1) hash.update(chunkOf(index));
  return hash.digest('hex');
}

/**
 * One node:http server standing in for many instances at once: `/i/<n>/actuator/health` is UP
 * for any n (the time of each check is recorded per n), and `/dl/actuator` is an instance with a
 * `heapdump` of `downloadBytes`, streamed with backpressure.
 */
export class BulkInstance {
  healthChecks = 0;
  /** `Date.now()` of every health check of `/i/<n>`, by n. */
  readonly checkTimes = new Map<number, number[]>();
  downloadsStarted = 0;
  #listening: LocalServer | undefined;

  private constructor(readonly downloadBytes: number, readonly host: string) {}

  /**
   * `host` is the name URLs use (`localhost` makes every new connection a DNS lookup, which runs
   * on libuv's threadpool); `keepAlive: false` closes the connection after each health answer.
   */
  static async start(downloadBytes: number, options: { readonly host?: string; readonly keepAlive?: boolean } = {}): Promise<BulkInstance> {
    const close = options.keepAlive === false ? { connection: 'close' } : {};
    let bulk: BulkInstance;
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/dl/actuator') {
        const links = Object.fromEntries(['health', 'heapdump'].map((id) => [id, { href: `${bulk.base}/dl/actuator/${id}`, templated: false }]));
        res.writeHead(200, { 'content-type': ACTUATOR_V3 }).end(JSON.stringify({ _links: links }));
      } else if (path === '/dl/actuator/heapdump') {
        bulk.downloadsStarted += 1;
        stream(res, downloadBytes);
      } else if (path?.endsWith('/actuator/health')) {
        bulk.healthChecks += 1;
        const n = /^\/i\/(\d+)\//.exec(path)?.[1];
        if (n !== undefined) bulk.#recordCheck(Number(n));
        res.writeHead(200, { 'content-type': ACTUATOR_V3, ...close }).end('{"status":"UP"}');
      } else {
        res.writeHead(404).end();
      }
    });
    bulk = new BulkInstance(downloadBytes, options.host ?? '127.0.0.1');
    bulk.#listening = await listenLocal(server);
    return bulk;
  }

  get base(): string {
    return `http://${this.host}:${this.#listening!.port}`;
  }

  #recordCheck(n: number): void {
    const times = this.checkTimes.get(n);
    if (times) times.push(Date.now());
    else this.checkTimes.set(n, [Date.now()]);
  }

  healthUrl(n: number): string {
    return `${this.base}/i/${n}/actuator/health`;
  }

  close(): Promise<void> {
    return this.#listening!.close();
  }
}

function stream(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes) });
  let index = 0;
  const pump = () => {
    while (index < bytes / CHUNK) {
      const more = res.write(chunkOf(index));
      index += 1;
      if (!more) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('error', () => undefined);
  pump();
}
