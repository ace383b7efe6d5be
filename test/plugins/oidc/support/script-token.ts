import * as client from 'openid-client';
import { RESOURCE, SCRIPT_CLIENT_ID, type TestProvider } from './provider.js';
import { UserAgent } from './user-agent.js';

/**
 * What a script does to call Vigil with the provider's token: the authorization code flow as
 * its own (public, native) client, asking for Vigil's API as the resource, which makes the
 * provider issue a JWT access token (RFC 9068) with Vigil's audience.
 */
export async function scriptAccessToken(provider: TestProvider, login: string): Promise<string> {
  const config = await client.discovery(new URL(provider.issuer), SCRIPT_CLIENT_ID, { token_endpoint_auth_method: 'none' }, client.None(), { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const redirectUri = 'http://127.0.0.1:9/callback';
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: 'openid read', resource: RESOURCE, state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const agent = new UserAgent();
  const step = await agent.open(url.href, { login, stopAt: (next) => next.startsWith(redirectUri) });
  const tokens = await client.authorizationCodeGrant(config, new URL(step.location!), { pkceCodeVerifier: verifier, expectedState: state }, { resource: RESOURCE });
  return tokens.access_token;
}
