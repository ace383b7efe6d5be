import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FleetReply, FleetRequest } from './fleet-protocol.js';

/**
 * N fake Spring Boot instances in one process: instance n lives at
 * `http://127.0.0.1:<port n mod P>/i/<n>/actuator` with an index (`_links`), health and info.
 * Bodies are built once, so the fleet spends its CPU on HTTP and not on JSON. It counts every
 * request per instance and, while recording, notes each health request's time, so the benchmark
 * can see from outside which instance was checked when.
 *
 * Started by bench/monitoring with `N P` as arguments and an IPC channel (fleet-protocol.ts).
 */
const instances = Number(process.argv[2]);
const portCount = Number(process.argv[3]);
const V3 = 'application/vnd.spring-boot.actuator.v3+json';
// What a Boot 3 application typically lists: a dozen endpoints and one templated link.
const INDEX_LINKS = ['health', 'info', 'env', 'metrics', 'loggers', 'threaddump', 'heapdump', 'prometheus', 'configprops', 'mappings'];

const health = Buffer.from('{"status":"UP"}');
const info = Buffer.from(JSON.stringify({ build: { artifact: 'fleet-app', version: '1.4.2' }, git: { branch: 'main', commit: { id: 'a1b2c3d' } } }));
let indexBodies: Buffer[] = [];

const healthCount = new Uint32Array(instances);
const infoCount = new Uint32Array(instances);
let infoSeen = 0;
let requests = 0;
let recording = false;
let recordedIds: number[] = [];
let recordedAt: number[] = [];
/** Which Vigil node made each recorded check (from `User-Agent: Vigil/<v> (node <id>)`), as an index into `nodeNames`. */
let recordedBy: number[] = [];
const nodeNames: string[] = [];

function nodeOf(userAgent: string | undefined): number {
  const name = userAgent === undefined ? '?' : /\(node ([^)]+)\)/.exec(userAgent)?.[1] ?? '?';
  let index = nodeNames.indexOf(name);
  if (index < 0) index = nodeNames.push(name) - 1;
  return index;
}

function send(res: ServerResponse, body: Buffer): void {
  res.writeHead(200, ['content-type', V3, 'content-length', String(body.length)]);
  res.end(body);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  requests += 1;
  // `/i/<n>/actuator[/health|/info]`, parsed by hand: this runs 2,000 times a second.
  const url = req.url ?? '';
  const slash = url.indexOf('/', 3);
  const n = url.startsWith('/i/') && slash > 3 ? Number(url.slice(3, slash)) : -1;
  const rest = slash > 0 ? url.slice(slash) : '';
  if (!(n >= 0 && n < instances) || req.method !== 'GET') {
    res.writeHead(404).end();
    return;
  }
  if (rest === '/actuator/health') {
    healthCount[n] += 1;
    if (recording) {
      recordedIds.push(n);
      recordedAt.push(Date.now());
      recordedBy.push(nodeOf(req.headers['user-agent']));
    }
    send(res, health);
  } else if (rest === '/actuator/info') {
    if (infoCount[n]++ === 0) infoSeen += 1;
    send(res, info);
  } else if (rest === '/actuator') {
    send(res, indexBodies[n]!);
  } else {
    res.writeHead(404).end();
  }
}

function indexOf(n: number, port: number): Buffer {
  const base = `http://127.0.0.1:${port}/i/${n}/actuator`;
  const links: Record<string, { href: string; templated: boolean }> = { self: { href: base, templated: false } };
  for (const id of INDEX_LINKS) links[id] = { href: `${base}/${id}`, templated: false };
  links['metrics-requiredMetricName'] = { href: `${base}/metrics/{requiredMetricName}`, templated: true };
  return Buffer.from(JSON.stringify({ _links: links }));
}

function reply(message: FleetReply): void {
  process.send!(message);
}

process.on('message', (message: FleetRequest) => {
  switch (message.type) {
    case 'progress':
      reply({ type: 'progress', requests, infoSeen, healthTotal: healthCount.reduce((sum, c) => sum + c, 0) });
      break;
    case 'record':
      recording = message.on;
      if (message.on) {
        recordedIds = [];
        recordedAt = [];
        recordedBy = [];
      }
      reply({ type: 'recording', on: recording });
      break;
    case 'dump':
      reply({ type: 'dump', ids: recordedIds, at: recordedAt, by: recordedBy, nodeNames });
      break;
  }
});
// The parent went away: do not linger as an orphan holding ports.
process.on('disconnect', () => process.exit(0));

const ports: number[] = [];
for (let i = 0; i < portCount; i += 1) {
  const server = createServer(handle);
  // Longer than any interval, so a connection is never dropped between two checks (Tomcat keeps 60 s too).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports.push((server.address() as AddressInfo).port);
}
indexBodies = Array.from({ length: instances }, (_, n) => indexOf(n, ports[n % portCount]!));
reply({ type: 'ready', ports });
