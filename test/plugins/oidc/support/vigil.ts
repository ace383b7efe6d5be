import { definePlugin, type VigilPlugin } from '../../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../../core/testing.js';
import { createOidcPlugin } from '../../../../plugins/oidc/index.js';
import { CLIENT_ID, type TestProvider } from './provider.js';

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
}

/** A kernel with the oidc plugin against the test provider, and the whoami route. */
export function startVigil(provider: TestProvider, options: VigilOptions = {}): Promise<TestKernel> {
  const oidc = createOidcPlugin(options.clock ? { now: options.clock.now } : {}) as VigilPlugin<never>;
  return startTestKernel({
    plugins: [...(options.plugins ?? ['rest-api']), oidc, whoami],
    config: { 'log-level': 'debug', ...options.config, oidc: { issuer: provider.issuer, 'client-id': CLIENT_ID, ...options.oidc } },
  });
}
