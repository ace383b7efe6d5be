import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';

/** The client Vigil is registered as in the test provider (a native app: any loopback port). */
export const CLIENT_ID = 'vigil';
/** A second client: a script that gets its own tokens (for bearer access tokens). */
export const SCRIPT_CLIENT_ID = 'vigil-cli';
/** The resource (API) a script asks JWT access tokens for; their `aud` is `ACCESS_TOKEN_AUDIENCE`. */
export const RESOURCE = 'urn:vigil:api';
export const ACCESS_TOKEN_AUDIENCE = 'vigil-api';

export interface TestProviderOptions {
  /** Groups of each login (anyone may sign in; unlisted logins have none). Read at each token, so a test may change them. */
  readonly groups?: Record<string, readonly string[]>;
  /** Put claims asked for by scope (groups among them) into the ID token too, not only userinfo. */
  readonly claimsInIdToken?: boolean;
  /** A confidential client with this secret; a public client (PKCE only) without. */
  readonly clientSecret?: string;
  /** Access token lifetime in seconds (how soon a session renews). */
  readonly accessTokenTtl?: number;
  /** Whether the provider advertises an `end_session_endpoint`. */
  readonly endSession?: boolean;
  /** Whether refresh tokens are issued. */
  readonly refreshTokens?: boolean;
  /** The paths (below any loopback origin) Vigil's callback and signed-out page are at. */
  readonly contextPath?: string;
  /** A public base URL (`oidc.base-url`) whose callback and signed-out page are registered too. */
  readonly publicBase?: string;
}

export interface TestProvider {
  readonly issuer: string;
  readonly provider: Provider;
  /** Token endpoint grants served so far, by grant type. */
  readonly grants: Record<string, number>;
  /** `METHOD /path` of every request the provider got, in order. */
  readonly requests: string[];
  /** How many requests went to `path` (e.g. `/me`, the userinfo endpoint). */
  requestsTo(path: string): number;
  /** Ends every grant of `login` (as disabling the person would): its refresh tokens stop working. */
  revoke(login: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider on 127.0.0.1 (panva's certified oidc-provider) with its
 * development sign-in form: any login and password sign in. Consent is given by default (a
 * first-party client), so a sign-in is the login form and nothing else.
 */
export async function startProvider(options: TestProviderOptions = {}): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cp = options.contextPath ?? '';
  const groupsOf = (login: string) => [...(options.groups?.[login] ?? [])];
  const grantIds = new Map<string, Set<string>>();

  const configuration: Configuration = {
    clients: [
      {
        client_id: CLIENT_ID,
        ...(options.clientSecret === undefined ? { token_endpoint_auth_method: 'none' } : { client_secret: options.clientSecret, token_endpoint_auth_method: 'client_secret_post' }),
        application_type: 'native',
        redirect_uris: [`http://127.0.0.1${cp}/login/oidc/callback`, ...(options.publicBase ? [`${options.publicBase}/login/oidc/callback`] : [])],
        post_logout_redirect_uris: [`http://127.0.0.1${cp}/login/signed-out`, ...(options.publicBase ? [`${options.publicBase}/login/signed-out`] : [])],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      {
        client_id: SCRIPT_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    async findAccount(_ctx, sub) {
      return {
        accountId: sub,
        claims: async () => ({ sub, preferred_username: sub, name: `${sub[0]!.toUpperCase()}${sub.slice(1)}`, email: `${sub}@example.test`, groups: groupsOf(sub) }),
      };
    },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name', 'groups'], email: ['email'] },
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    conformIdTokenClaims: options.claimsInIdToken !== true,
    ttl: { AccessToken: options.accessTokenTtl ?? 3600, IdToken: 3600, RefreshToken: 14 * 86400, Session: 86400, Grant: 86400, Interaction: 600 },
    issueRefreshToken: async (_ctx, client) => options.refreshTokens !== false && client.grantTypeAllowed('refresh_token'),
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const { oidc } = ctx;
      const existing = oidc.result?.consent?.grantId ?? oidc.session!.grantIdFor(oidc.client!.clientId);
      if (existing) return oidc.provider.Grant.find(existing);
      const grant = new oidc.provider.Grant({ clientId: oidc.client!.clientId, accountId: oidc.session!.accountId! });
      grant.addOIDCScope('openid profile email offline_access');
      grant.addResourceScope(RESOURCE, 'read');
      const id = await grant.save();
      grantIds.set(oidc.session!.accountId!, (grantIds.get(oidc.session!.accountId!) ?? new Set()).add(id));
      return grant;
    },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: options.endSession !== false },
      resourceIndicators: {
        enabled: true,
        // Only a client that asks for the API (`resource`) gets a JWT for it; Vigil's own sign-in
        // does not ask, and gets an opaque access token for userinfo (the default resource: none).
        getResourceServerInfo: () => ({ scope: 'read', audience: ACCESS_TOKEN_AUDIENCE, accessTokenFormat: 'jwt', accessTokenTTL: options.accessTokenTtl ?? 3600 }),
      },
    },
    pkce: { required: () => true },
  };
  const provider = new Provider(issuer, configuration);
  const grants: Record<string, number> = {};
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const type = String((ctx.oidc.params as { grant_type?: unknown } | undefined)?.grant_type ?? 'unknown');
    grants[type] = (grants[type] ?? 0) + 1;
  });
  const requests: string[] = [];
  server.on('request', (req) => requests.push(`${req.method} ${(req.url ?? '/').split('?')[0]}`));
  server.on('request', provider.callback());
  return {
    issuer,
    provider,
    grants,
    requests,
    requestsTo: (path) => requests.filter((request) => request.endsWith(` ${path}`)).length,
    async revoke(login) {
      for (const id of grantIds.get(login) ?? []) await provider.Grant.adapter.destroy(id);
      grantIds.delete(login);
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
