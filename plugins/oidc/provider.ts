import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as client from 'openid-client';
import type { Logger } from '../../core/plugin-api.js';
import type { OidcConfig } from './config.js';
import { isLoopbackHost } from './loopback.js';

/** Seconds a call to the provider may take (openid-client counts in seconds). */
const TIMEOUT_SECONDS = 10;
/** After a failed discovery, sign-ins fail at once for this long instead of each waiting for the provider. */
const RETRY_DISCOVERY_MS = 10_000;
/** Only asymmetric signatures: a token signed with a shared secret could come from any holder of it. */
const ACCESS_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The provider cannot be reached or read now (network, timeout, a broken discovery document). */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
}

/** What one sign-in attempt must remember until the provider sends the browser back. */
export interface SignInChecks {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

export type Tokens = Awaited<ReturnType<typeof client.authorizationCodeGrant>>;

/**
 * The identity provider as Vigil uses it, through openid-client (a certified relying party):
 * discovery on first use (so a provider that is down at start does not stop the daemon), the
 * authorization code grant with PKCE, state and nonce, userinfo, refresh, the sign-out URL, and
 * jose for access tokens sent as bearer tokens.
 */
export class IdentityProvider {
  #discovered: Promise<client.Configuration> | undefined;
  #failedAt = -Infinity;
  #jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(
    private readonly config: OidcConfig,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** The discovered configuration; rejects with `ProviderUnavailableError` while the provider cannot be read. */
  async configuration(): Promise<client.Configuration> {
    if (this.#discovered === undefined) {
      if (Date.now() - this.#failedAt < RETRY_DISCOVERY_MS) throw new ProviderUnavailableError('the identity provider could not be reached a moment ago');
      this.#discovered = this.#discover().catch((error: unknown) => {
        this.#discovered = undefined;
        this.#failedAt = Date.now();
        this.log.warn(`cannot read the identity provider's configuration from ${this.config.issuer}: ${describe(error)}`);
        throw new ProviderUnavailableError(`the identity provider's configuration cannot be read: ${describe(error)}`, { cause: error });
      });
    }
    return this.#discovered;
  }

  async #discover(): Promise<client.Configuration> {
    const secret = this.config['client-secret'];
    // An http issuer passed the config check only on loopback (tests, a provider on this machine).
    const insecure = new URL(this.config.issuer).protocol === 'http:' && isLoopbackHost(new URL(this.config.issuer).hostname);
    const configuration = await client.discovery(
      new URL(this.config.issuer),
      this.config['client-id'],
      secret === undefined ? { token_endpoint_auth_method: 'none' } : secret,
      secret === undefined ? client.None() : undefined,
      { timeout: TIMEOUT_SECONDS, ...(insecure ? { execute: [client.allowInsecureRequests] } : {}) },
    );
    configuration.timeout = TIMEOUT_SECONDS;
    this.log.info(`identity provider ${configuration.serverMetadata().issuer} discovered`);
    return configuration;
  }

  /** Begins a sign-in: the provider's URL to send the browser to, and the checks to keep until it comes back. */
  async authorizationUrl(redirectUri: string): Promise<{ url: URL; checks: SignInChecks }> {
    const configuration = await this.configuration();
    const checks = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.config.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(checks.verifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    });
    return { url, checks };
  }

  /**
   * Completes a sign-in from the callback's URL (the configured public callback plus the query the
   * browser brought: the redirect URI sent to the token endpoint is derived from it, so it must be
   * exactly the one sent in `authorizationUrl`).
   */
  async exchange(callbackUrl: URL, checks: SignInChecks): Promise<Tokens> {
    return client.authorizationCodeGrant(await this.configuration(), callbackUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
  }

  /** The userinfo claims for `sub`, or undefined when the provider has no userinfo endpoint. */
  async userinfo(accessToken: string, sub: string): Promise<Record<string, unknown> | undefined> {
    const configuration = await this.configuration();
    if (configuration.serverMetadata().userinfo_endpoint === undefined) return undefined;
    return client.fetchUserInfo(configuration, accessToken, sub);
  }

  async refresh(refreshToken: string): Promise<Tokens> {
    return client.refreshTokenGrant(await this.configuration(), refreshToken);
  }

  /** The provider's sign-out URL, or undefined when it has no `end_session_endpoint` (or cannot be read now). */
  async endSessionUrl(parameters: Record<string, string>): Promise<URL | undefined> {
    let configuration: client.Configuration;
    try {
      configuration = await this.configuration();
    } catch {
      return undefined;
    }
    if (configuration.serverMetadata().end_session_endpoint === undefined) return undefined;
    return client.buildEndSessionUrl(configuration, { client_id: this.config['client-id'], ...parameters });
  }

  /**
   * The claims of a JWT access token this provider issued for Vigil (issuer, audience, expiry and
   * signature checked against its published keys), or undefined for any other token.
   */
  async verifyAccessToken(token: string): Promise<JWTPayload | undefined> {
    const configuration = await this.configuration();
    const metadata = configuration.serverMetadata();
    if (metadata.jwks_uri === undefined) return undefined;
    // One key set per provider: an unknown `kid` refetches it at most once per cooldown (30 s).
    this.#jwks ??= createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: TIMEOUT_SECONDS * 1000 });
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.#jwks, {
        issuer: metadata.issuer,
        audience: this.config.audience || this.config['client-id'],
        algorithms: ACCESS_TOKEN_ALGORITHMS,
        clockTolerance: 30,
        requiredClaims: ['sub', 'exp'],
        currentDate: new Date(this.now()),
      });
      if (isIdToken(payload, protectedHeader.typ)) {
        this.log.debug('bearer token refused: it is an ID token, not an access token');
        return undefined;
      }
      return payload;
    } catch (error) {
      this.log.debug(`bearer token refused: ${describe(error)}`);
      return undefined;
    }
  }
}

/**
 * Whether a token is an ID token: signed by the same keys for the same audience (the client id),
 * it would pass every other check, but it is proof of a sign-in meant for Vigil's eyes only,
 * travels in sign-out URLs, and grants nothing. Access tokens are typed `at+jwt` (RFC 9068) or
 * `JWT` (Keycloak, Entra ID); an ID token carries the sign-in's `nonce`, or Keycloak's `typ: ID`.
 */
function isIdToken(payload: JWTPayload, typ: string | undefined): boolean {
  const type = typ?.toLowerCase().replace(/^application\//, '');
  if (type !== undefined && type !== 'jwt' && type !== 'at+jwt') return true;
  return payload.nonce !== undefined || payload.typ === 'ID';
}

/** Whether a failure is the provider being away (network, timeout), rather than an answer it gave. */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof ProviderUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return true;
  // fetch fails with a TypeError whose cause is the socket's error.
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}

/**
 * A failure's message for a log line: the provider's error code (with its description when it
 * came from the provider itself, over the back channel), never a token. What came back through
 * the browser (the callback's `error`) is anyone's to forge: only a well-formed code is named.
 */
export function describe(error: unknown): string {
  if (error instanceof client.AuthorizationResponseError) {
    return /^[\w.-]{1,64}$/.test(error.error) ? error.error : 'an error code that is not one';
  }
  if (error instanceof client.ResponseBodyError) {
    return `${error.error.slice(0, 64)}${error.error_description ? ` (${error.error_description.slice(0, 200)})` : ''}`;
  }
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`.slice(0, 300);
  }
  return String(error).slice(0, 300);
}
