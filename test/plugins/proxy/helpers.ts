import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
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
export async function registerDetected(tk: TestKernel, fake: FakeActuator, options: {
  name?: string;
  endpoints?: readonly string[] | Record<string, string>;
  metadata?: Record<string, string>;
} = {}): Promise<string> {
  const { id } = await tk.kernel.registry.register({
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
  await tk.kernel.registry.apply(id, detectEndpointsCommand(endpoints));
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
      // write, not end: Node servers treat a half-closed request as an aborted one.
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
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

export interface StreamedReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly bytes: number;
  readonly sha256: string;
  /** Set when the connection broke before the body was complete. */
  readonly error?: Error;
}

/** Streams a response through SHA-256 without holding it; a broken body resolves with `error`. */
export function streamRequest(base: string, method: string, target: string, headers: Record<string, string> = {}, body?: import('node:stream').Readable): Promise<StreamedReply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path: target, headers, agent: false }, (res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      let settled = false;
      const finish = (error?: Error) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, sha256: hash.digest('hex'), ...(error ? { error } : {}) });
      };
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
      });
      res.on('end', () => finish());
      res.on('error', finish);
      res.on('close', () => finish(res.complete ? undefined : new Error('response incomplete')));
    });
    req.on('error', reject);
    if (body) body.pipe(req);
    else req.end();
  });
}

/** Fails instead of hanging the suite when an awaited event never comes (uvu has no test timeout). */
export function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}
