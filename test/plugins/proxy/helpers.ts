import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { startTestKernel, type TestKernel } from '../../../core/testing.js';
import { detectEndpointsCommand, type VigilPlugin } from '../../../core/plugin-api.js';
import type { FakeActuator } from '../../support/fake-actuator.js';

/** A kernel with just what the proxy needs: rest-api (for realism) and proxy. */
export function proxyKernel(proxy: Record<string, unknown> = {}, extra: readonly VigilPlugin<never>[] = [], config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startTestKernel({ plugins: ['rest-api', 'proxy', ...extra], config: { 'log-level': 'error', proxy, ...config } });
}

/**
 * Registers `fake` and records its endpoints as detected, the way the monitor would: the proxy is
 * tested without monitoring. `endpoints` maps ids to URLs (default: the fake's `/actuator/<id>`).
 */
export function registerDetected(tk: TestKernel, fake: FakeActuator, options: {
  name?: string;
  endpoints?: readonly string[] | Record<string, string>;
  metadata?: Record<string, string>;
} = {}): string {
  const { id } = tk.kernel.instances.register({
    name: options.name ?? 'app',
    managementUrl: fake.managementUrl,
    healthUrl: fake.healthUrl,
    serviceUrl: `${fake.origin}/`,
    source: 'http-api',
    metadata: options.metadata ?? {},
  });
  const wanted = options.endpoints ?? ['health', 'info', 'metrics', 'env', 'loggers', 'heapdump', 'logfile'];
  const endpoints = Array.isArray(wanted)
    ? wanted.map((endpointId: string) => ({ id: endpointId, url: fake.endpointUrl(endpointId) }))
    : Object.entries(wanted).map(([endpointId, url]) => ({ id: endpointId, url }));
  tk.kernel.instances.apply(id, detectEndpointsCommand(endpoints));
  return id;
}

export interface RawReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Sends `target` byte for byte (no client-side URL normalisation) and reads the whole answer. */
export function rawRequest(base: string, method: string, target: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<RawReply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Writes a request line by hand, for targets Node's client refuses (spaces, control bytes).
 * Resolves with the status code, or 0 when the server closed without an answer.
 */
export function rawStatus(base: string, target: string): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.end(`GET ${target} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}

/** The base path of the proxy for one instance, context path included. */
export function instancePath(tk: TestKernel, id: string): string {
  return `${new URL(tk.url).pathname.replace(/\/$/, '')}/instances/${id}/actuator`;
}
