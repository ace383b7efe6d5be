import { request } from 'node:http';

/** One answer, as a client at some address saw it. */
export interface AddressedReply {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/**
 * 127.0.0.1 and `count - 1` more loopback addresses (127.1.0.1, ...): on Linux all of 127/8 is
 * loopback, so a client bound to one of them looks to the server like a separate host.
 */
export function loopbackAddresses(count: number): string[] {
  return ['127.0.0.1', ...Array.from({ length: count - 1 }, (_, i) => `127.1.${Math.floor((i + 1) / 256)}.${(i + 1) % 256}`)];
}

/** GET `path` on its own connection from `localAddress`; fails instead of hanging after `timeoutMs`. */
export function getFrom(localAddress: string, port: number, path: string, headers: Record<string, string>, timeoutMs = 120_000): Promise<AddressedReply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, localAddress, agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} from ${localAddress}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
