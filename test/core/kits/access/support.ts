import { startTestKernel, type TestKernel } from '../../../../bin/testing.js';
import { call, type Reply } from '../../../support/http.js';
import type { FakeActuator } from '../../../support/fake-actuator.js';

/** Every caller of the access suite: basic-auth users and tokens, with and without a role. */
export const PASSWORD = 'correct horse';
export const basic = (user: string) => `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}`;
export const as = (user: string) => ({ authorization: basic(user) });
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The grants of the suite: alice operates payments-*, bob views them, root is admin, token `orders-view` sees orders. */
export const ACCESS = {
  grants: [
    { subjects: ['user:alice'], role: 'operator', applications: ['payments-*'] },
    { subjects: ['user:bob', 'group:never-sent'], role: 'viewer', applications: ['payments-*'] },
    { subjects: ['user:root'], role: 'admin' },
    { subjects: ['token:orders-view'], role: 'viewer', applications: ['orders'] },
  ],
  'sensitive-endpoints': ['heapdump'],
  'admin-endpoints': ['shutdown'],
};

/** What `GET /access/me` tells of ACCESS's sensitive and admin endpoints. */
export const ELEVATED = { sensitiveEndpoints: ['heapdump'], adminEndpoints: ['shutdown'] };

export function basicAuth(extraTokens: Record<string, unknown>[] = []): Record<string, unknown> {
  return {
    users: ['alice', 'bob', 'root', 'nobody'].map((username) => ({ username, password: PASSWORD }))
      .concat([{ username: 'client', password: PASSWORD, role: 'registration' } as never]),
    tokens: [
      { name: 'ci', token: 'ci-token', role: 'operator' },
      { name: 'orders-view', token: 'orders-view-token' },
      ...extraTokens,
    ],
  };
}

export async function accessKernel(config: Record<string, unknown> = {}, plugins: string[] = ['rest-api', 'sse', 'proxy', 'basic-auth']): Promise<TestKernel> {
  return startTestKernel({ plugins, config: { 'basic-auth': basicAuth(), access: ACCESS, ...config } });
}

/** Registers straight into the registry (no credentials needed), as `name`, at the fake's URLs. */
export async function registerAt(tk: TestKernel, name: string, fake: FakeActuator | { origin: string }): Promise<string> {
  const { id } = await tk.kernel.registry.register({
    name, healthUrl: `${fake.origin}/actuator/health`, managementUrl: `${fake.origin}/actuator`, serviceUrl: fake.origin, metadata: {}, source: 'test',
  });
  return id;
}

/** A reply's error body without its timestamp, for comparing two answers. */
export function errorOf(reply: Reply): { status: number; body: Record<string, unknown> } {
  const { timestamp: _ignored, ...body } = reply.json as Record<string, unknown>;
  return { status: reply.status, body };
}

export { call };
