import { get } from 'node:http';
import { residentKb } from '../support.js';

export interface StreamMemory {
  /** Resident set size of the proxy before the transfer, KiB. */
  readonly beforeKb: number;
  /** The highest resident set size sampled during the transfer, KiB. */
  readonly peakKb: number;
  readonly bytes: number;
  readonly seconds: number;
}

const SAMPLE_MS = 20;

/**
 * Downloads `url` as fast as this process can read it (counting bytes, keeping none) while it
 * samples the proxy's VmRSS from /proc: growth = peak − before is what the proxy holds for one
 * stream, whatever its length.
 */
export async function measureStreamMemory(url: string, proxyPid: number, expectedBytes: number): Promise<StreamMemory> {
  const beforeKb = residentKb(proxyPid);
  let peakKb = beforeKb;
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, residentKb(proxyPid));
  }, SAMPLE_MS);
  const started = process.hrtime.bigint();
  try {
    const bytes = await download(url);
    if (bytes !== expectedBytes) throw new Error(`${url}: received ${bytes} bytes, expected ${expectedBytes}`);
    peakKb = Math.max(peakKb, residentKb(proxyPid));
    return { beforeKb, peakKb, bytes, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
  } finally {
    clearInterval(sampler);
  }
}

function download(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // agent: false and an explicit Accept, as a user downloading a heapdump would send.
    get(url, { agent: false, headers: { accept: '*/*' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: status ${res.statusCode}`));
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    }).on('error', reject);
  });
}
