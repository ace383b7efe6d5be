import { Agent, request } from 'undici';
import type { PollerReply, PollerRequest } from './fleet-protocol.js';

/**
 * The floor of what polling costs in Node here: GET every health URL of the fleet once per
 * interval, evenly spread, through an undici Agent with the monitor's settings (8 keep-alive
 * connections per origin, 10 s idle), reading and parsing each body. No registry, no events, no
 * scheduler worth the name, no time-outs: what is left is the HTTP client and the event loop.
 *
 * Arguments: N, comma-separated ports, interval in ms. Polling begins on `{type:'start'}`.
 */
const instances = Number(process.argv[2]);
const ports = process.argv[3]!.split(',').map(Number);
const interval = Number(process.argv[4]);
const SLOT_MS = 50;
const ACCEPT = 'application/vnd.spring-boot.actuator.v3+json, application/vnd.spring-boot.actuator.v2+json, application/json';

const agent = new Agent({ connections: 8, keepAliveTimeout: 10_000 });
const urls = Array.from({ length: instances }, (_, n) => `http://127.0.0.1:${ports[n % ports.length]}/i/${n}/actuator/health`);
let polls = 0;
let failures = 0;

async function poll(n: number): Promise<void> {
  try {
    const { statusCode, body } = await request(urls[n]!, { dispatcher: agent, headers: { accept: ACCEPT } });
    const status = (JSON.parse(await body.text()) as { status?: unknown }).status;
    if (statusCode === 200 && status === 'UP') polls += 1;
    else failures += 1;
  } catch {
    failures += 1;
  }
}

function start(): void {
  const begun = Date.now();
  let next = 0;
  // Instance n is due at n × interval / N into each round: the same spread the monitor's phases give.
  setInterval(() => {
    const elapsed = Date.now() - begun;
    const upTo = Math.floor((elapsed / interval) * instances);
    for (; next < upTo; next += 1) void poll(next % instances);
  }, SLOT_MS);
}

function reply(message: PollerReply): void {
  process.send!(message);
}

process.on('message', (message: PollerRequest) => {
  if (message.type === 'start') start();
  else reply({ type: 'stats', polls, failures });
});
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready' });
