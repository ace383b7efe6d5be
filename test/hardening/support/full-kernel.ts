import { createHash } from 'node:crypto';
import type { HttpMethod, PluginContext, VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { builtinPlugins } from '../../../bin/builtin-plugins.js';

/** Credentials of the fully loaded kernel. Each is unique text, so a leak can be searched for. */
export const ADMIN = { username: 'admin', password: 'Adm1n-pw-4c2e9f' } as const;
export const CLIENT = { username: 'client', password: 'Cl1ent-pw-7d0b13', role: 'registration' } as const;
export const TOKEN = 'tok-bearer-5e8a0c61d2';
export const ALLOWED_ORIGIN = 'https://ops.example.com';

export const basic = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

export interface Route {
  readonly method: HttpMethod;
  /** Full path pattern, context path included: `/admin/instances/:id`. */
  readonly path: string;
}

export interface FullKernel {
  readonly tk: TestKernel;
  /** The router's own table, read after every plugin set up: a new route is in it automatically. */
  readonly routes: readonly Route[];
  readonly port: number;
}

/**
 * Built-in plugins that cannot start without a service outside Vigil (a Redis, an identity
 * provider), each with its own suite against the real thing. `cluster-redis` adds no route;
 * `oidc` adds its sign-in pages and sends browsers to them, and its own suite sweeps every route
 * with it loaded beside basic-auth (test/plugins/oidc/with-basic-auth.test.ts).
 */
const NEEDS_A_SERVICE: ReadonlySet<string> = new Set(['cluster-redis', 'oidc']);

/** Every built-in plugin that starts with no service outside Vigil: what the sweeps and the daemon suites load. */
export function selfContainedPlugins(): string[] {
  return Object.keys(builtinPlugins).filter((name) => !NEEDS_A_SERVICE.has(name));
}

/** The `basic-auth` and `cors` sections that turn both on with the credentials above. */
export function securityConfig(): Record<string, unknown> {
  return {
    cors: { 'allowed-origins': ALLOWED_ORIGIN },
    'basic-auth': {
      users: [
        { username: ADMIN.username, password: ADMIN.password },
        { username: CLIENT.username, password: CLIENT.password, role: CLIENT.role },
      ],
      tokens: [{ name: 'ci', 'token-hash': `sha256$${createHash('sha256').update(TOKEN).digest('hex')}` }],
    },
  };
}

/**
 * Sections for the discovery sources, whose connection keys are required: each points where
 * nothing answers (port 1 refuses at once) or at a file that is not there, so the sources load,
 * run and fail quietly without reaching anything, and add no instance to what a test sees.
 */
export function discoveryConfig(): Record<string, unknown> {
  const nowhere = 'http://127.0.0.1:1';
  return {
    'discovery-file': { path: `/nonexistent/vigil-hardening-${process.pid}.yaml`, missing: 'empty' },
    'discovery-dns': { records: [{ name: 'nowhere', srv: '_http._tcp.nowhere.invalid' }], servers: ['127.0.0.1:1'] },
    'discovery-kubernetes': { 'api-url': nowhere, namespaces: ['default'] },
    'discovery-consul': { url: nowhere },
    'discovery-eureka': { url: `${nowhere}/eureka` },
  };
}

/**
 * A real kernel on 127.0.0.1 with every built-in plugin (taken from the built-in map, so a new
 * plugin is loaded too), authentication and CORS on, plus a last plugin that reads the router's
 * table once everything has set up.
 */
export async function startFullKernel(config: Record<string, unknown> = {}): Promise<FullKernel> {
  let routes: readonly Route[] = [];
  const table = {
    name: 'route-table',
    configKey: null,
    setup() {},
    start(ctx: PluginContext<unknown>) {
      routes = ctx.http.routes();
    },
  } as VigilPlugin<never>;
  const tk = await startTestKernel({
    plugins: [...selfContainedPlugins(), table],
    config: { ...securityConfig(), ...discoveryConfig(), ...config },
  });
  return { tk, routes, port: Number(new URL(tk.url).port) };
}
