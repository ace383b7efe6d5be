import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import type { VigilPlugin } from '../../../core/plugin-api.js';
import { call, eventually } from '../../support/http.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { registerDetected } from '../proxy/helpers.js';
import type { AuditEntry } from '../../../core/domain/index.js';

export const PASSWORD = 'pw-Secret-123';
export const basic = (user: string, password = PASSWORD) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
export const ADMIN = { authorization: basic('root') };
export const OPERATOR = { authorization: basic('olga') };
export const VIEWER = { authorization: basic('vera') };
export const CLIENT = { authorization: basic('client') };

/** What `GET /audit` answers: entries as JSON. */
export type Entry = AuditEntry;

/** Users of every role the tests need, as basic-auth shorthand grants. */
export const USERS = [
  { username: 'root', password: PASSWORD, role: 'admin' },
  { username: 'olga', password: PASSWORD, role: 'operator' },
  { username: 'vera', password: PASSWORD, role: 'viewer' },
  { username: 'client', password: PASSWORD, role: 'registration' },
];

export interface AuditKernel {
  readonly tk: TestKernel;
  readonly fake: FakeActuator;
  readonly id: string;
  /** The entries `GET /audit` answers the admin (with a query). */
  entries(query?: string): Promise<Entry[]>;
  /** Waits until an entry matching `match` is in the trail, and returns it. */
  entry(match: (entry: Entry) => boolean, what: string): Promise<Entry>;
  stop(): Promise<void>;
}

/** rest-api, proxy, basic-auth (four roles), audit, and one instance of application `shop` with detected endpoints. */
export async function startAudit(options: { audit?: Record<string, unknown>; config?: Record<string, unknown>; plugins?: readonly (string | VigilPlugin<never>)[] } = {}): Promise<AuditKernel> {
  const fake = await FakeActuator.start({ links: ['health', 'info', 'loggers', 'env', 'heapdump'] });
  fake.on('POST', '/loggers/ROOT', { status: 204 });
  fake.on('POST', '/env', { json: { ok: true } });
  fake.on('GET', '/heapdump', { body: 'HPROF', contentType: 'application/octet-stream' });
  const tk = await startTestKernel({
    plugins: options.plugins ?? ['rest-api', 'proxy', 'basic-auth', 'audit', 'metrics'],
    config: {
      'log-level': 'error',
      'basic-auth': { users: USERS },
      access: { 'sensitive-endpoints': ['heapdump'] },
      audit: options.audit ?? {},
      ...options.config,
    },
  });
  const id = await registerDetected(tk, fake, { name: 'shop', endpoints: ['health', 'info', 'loggers', 'env', 'heapdump'] });
  const entries = async (query = ''): Promise<Entry[]> => {
    const res = await call('GET', `${tk.url}/audit${query}`, { headers: ADMIN });
    if (res.status !== 200) throw new Error(`GET /audit${query}: ${res.status} ${res.text}`);
    return res.json as Entry[];
  };
  return {
    tk, fake, id, entries,
    entry: async (match, what) => eventually(async () => (await entries()).find(match), what),
    stop: async () => {
      await tk.stop();
      await fake.close();
    },
  };
}
