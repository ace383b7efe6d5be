import type { Endpoint, Instance, Registration } from '../../../core/domain/index.js';
import type { Logger } from '../../../core/plugin-api.js';
import type { InstanceHttpClient, InstanceRequestOptions } from '../../../core/kits/services/index.js';
import { emptyInstance } from '../../../core/store/instance.js';
import type { TestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';

/** Test fixtures for the detection strategies, kept apart from the monitor's real client. */

/** A registered instance with the given registration fields. */
export function instanceWith(registration: Partial<Registration>): Instance {
  return {
    ...emptyInstance('0123456789ab'),
    version: 0,
    registered: true,
    registration: { name: 'app', healthUrl: 'http://127.0.0.1:1/actuator/health', managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {}, ...registration },
  };
}

export interface RecordedCall {
  readonly url: string;
  readonly options: InstanceRequestOptions;
}

/** A minimal InstanceHttpClient over fetch that records each call's options. */
export function fetchClient(calls: RecordedCall[] = []): InstanceHttpClient {
  return {
    async request(_instance, url, options = {}) {
      calls.push({ url, options });
      const res = await fetch(url, { method: options.method ?? 'GET', headers: { ...options.headers }, signal: options.signal ?? null });
      const body = Buffer.from(await res.arrayBuffer());
      return { status: res.status, headers: Object.fromEntries(res.headers), contentType: res.headers.get('content-type') ?? '', body };
    },
  };
}

/** A logger that keeps `level message` lines for assertions. */
export function recordingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log: Logger = {
    error: (message) => void lines.push(`error ${message}`),
    warn: (message) => void lines.push(`warn ${message}`),
    info: (message) => void lines.push(`info ${message}`),
    debug: (message) => void lines.push(`debug ${message}`),
    child: () => log,
  };
  return { log, lines };
}

/** A port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Registers `registration` with a test kernel and resolves with the instance's endpoints once
 * the monitor recorded ENDPOINTS_DETECTED (sorted by id, as the order is not part of the contract).
 */
export async function registerAndDetect(kernel: TestKernel, registration: Record<string, unknown>): Promise<{ id: string; endpoints: Endpoint[] }> {
  const created = await call('POST', `${kernel.url}/instances`, { json: registration });
  if (created.status !== 201) throw new Error(`registration answered ${created.status}: ${created.text}`);
  const { id } = created.json as { id: string };
  await kernel.waitForEvent((event) => event.instance === id && event.type === 'ENDPOINTS_DETECTED', `ENDPOINTS_DETECTED of ${id}`);
  const instance = (await call('GET', `${kernel.url}/instances/${id}`)).json as { endpoints: Endpoint[] };
  return { id, endpoints: sortById(instance.endpoints) };
}

export function sortById(endpoints: readonly Endpoint[]): Endpoint[] {
  return [...endpoints].sort((a, b) => a.id.localeCompare(b.id));
}
