import { definePlugin, type VigilPlugin } from '../../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../../bin/testing.js';
import { createOidcPlugin } from '../../../../plugins/oidc/index.js';
import { CLIENT_ID, type TestProvider } from './provider.js';
import type { UserAgent } from './user-agent.js';

/**
 * A test-only route that answers who the request was authenticated as (`req.principal` and
 * `req.user`, as any route sees them): how the tests see who is signed in.
 */
export const whoami = definePlugin({
  name: 'whoami',
  configKey: null,
  setup(ctx) {
    ctx.http.route('GET', '/whoami', (req, res) => ctx.http.sendJson(res, 200, { user: req.user ?? null, principal: req.principal ?? null }));
  },
}) as VigilPlugin<never>;

/** A clock tests move by hand. */
export class FakeClock {
  constructor(public time = Date.now()) {}
  readonly now = (): number => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface VigilOptions {
  /** Plugins besides oidc and whoami (default: rest-api). */
  readonly plugins?: readonly string[];
  /** The oidc section beside issuer and client-id. */
  readonly oidc?: Record<string, unknown>;
  /** The rest of the config. */
  readonly config?: Record<string, unknown>;
  readonly clock?: FakeClock;
  /** How often the sessions of open streams are checked. */
  readonly streamCheckMs?: number;
}

/** A kernel with the oidc plugin against the test provider, and the whoami route. */
export function startVigil(provider: TestProvider, options: VigilOptions = {}): Promise<TestKernel> {
  const oidc = createOidcPlugin({
    ...(options.clock ? { now: options.clock.now } : {}),
    ...(options.streamCheckMs === undefined ? {} : { streamCheckMs: options.streamCheckMs }),
  }) as VigilPlugin<never>;
  return startTestKernel({
    plugins: [...(options.plugins ?? ['rest-api']), oidc, whoami],
    config: { 'log-level': 'debug', ...options.config, oidc: { issuer: provider.issuer, 'client-id': CLIENT_ID, ...options.oidc } },
  });
}

/**
 * Signs `login` in through the provider the way a browser does (`/login`, the provider's form,
 * the callback) and returns the session cookie's value; the agent holds it too.
 */
export async function signIn(agent: UserAgent, baseUrl: string, login: string): Promise<string> {
  const step = await agent.open(`${baseUrl}/login`, { login, stopAt: (url) => !url.includes('/login') && url.startsWith(new URL(baseUrl).origin) });
  const session = agent.cookie(baseUrl, 'vigil_session');
  if (step.status !== 303 || session === undefined) {
    throw new Error(`sign-in of ${login} failed: ${step.status} ${step.url} ${step.body.slice(0, 300)}`);
  }
  return session;
}

/** Who Vigil takes the agent (its session cookie, or `headers`) for: the whoami route's answer, or the status when refused. */
export async function whoIs(agent: UserAgent, baseUrl: string, headers: Record<string, string> = {}): Promise<{ name: string; groups: readonly string[]; via: string; kind: string } | number> {
  const step = await agent.send('GET', `${baseUrl}/whoami`, { headers: { accept: 'application/json', ...headers } });
  if (step.status !== 200) return step.status;
  return (JSON.parse(step.body) as { principal: { name: string; groups: readonly string[]; via: string; kind: string } }).principal;
}
