import { Agent, request } from 'undici';

/**
 * First registrations as fast as `connections` clients can send them for `seconds`: every body is
 * a new instance (a new healthUrl), so each one is a real write. Returns registrations per second.
 */
export async function firstRegistrations(url: string, seconds: number, connections: number, tag: string): Promise<number> {
  const agent = new Agent({ connections });
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  let n = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const k = n++;
      const body = JSON.stringify({
        name: `load-${k % 50}`,
        healthUrl: `http://10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}:8080/${tag}/actuator/health`,
        metadata: { startup: '2026-11-22T10:00:00Z', 'tags.env': 'bench' },
      });
      const res = await request(`${url}/instances`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`registration failed: ${res.statusCode}`);
      done += 1;
    }
  };
  const started = Date.now();
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    await agent.close();
  }
  return done / ((Date.now() - started) / 1000);
}
