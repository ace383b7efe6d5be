import { type Services } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE } from '../../core/kits/services/index.js';
import type { OidcConfig } from './config.js';
import { CALLBACK_PATH, LOGIN_PATH, LOGOUT_PATH, SIGNED_OUT_PATH } from './runtime.js';

const REDIRECT = (description: string) => ({ description, headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string' } } } });
const PAGE = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const TAGS = ['single sign-on'];

/** The plugin's routes and its security schemes in the OpenAPI document. */
export function oidcApi(services: Services, config: OidcConfig): void {
  const bearer = config['accept-access-tokens'];
  services.contribute(API_DESCRIPTION, {
    tags: [{ name: 'single sign-on', description: 'Browser sign-in through the OpenID Connect provider (plugin oidc)' }],
    paths: {
      [LOGIN_PATH]: {
        get: {
          tags: TAGS, summary: 'Sign in: sends the browser to the identity provider', operationId: 'signIn', security: [],
          parameters: [{ name: 'return', in: 'query', required: false, description: 'The path below the context root to come back to', schema: { type: 'string' } }],
          responses: { 303: REDIRECT('To the identity provider (or back, when already signed in)'), default: ERROR_RESPONSE },
        },
      },
      [CALLBACK_PATH]: {
        get: {
          tags: TAGS, summary: 'Where the identity provider sends the browser back; begins the session', operationId: 'signInCallback', security: [],
          responses: { 303: REDIRECT('Signed in: back to the page asked for, with the session cookie vigil_session'), default: ERROR_RESPONSE },
        },
      },
      [SIGNED_OUT_PATH]: {
        get: { tags: TAGS, summary: 'The signed-out page', operationId: 'signedOut', security: [], responses: { 200: PAGE('The page') } },
      },
      [LOGOUT_PATH]: {
        post: {
          tags: TAGS, summary: 'Sign out: ends the session, then signs out at the identity provider', operationId: 'signOut', security: [],
          responses: {
            200: { description: 'To a client asking for JSON: where to go', content: { 'application/json': { schema: { type: 'object', required: ['location'], properties: { location: { type: 'string' } } } } } },
            303: REDIRECT('To the identity provider\'s sign-out, or the signed-out page'),
            default: ERROR_RESPONSE,
          },
        },
      },
    },
    securitySchemes: {
      oidc: {
        type: 'openIdConnect',
        openIdConnectUrl: `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
        description: `single sign-on: a browser session (cookie vigil_session) begun at ${LOGIN_PATH}`,
      },
      ...(bearer ? { oidcBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'an access token from the identity provider' } } : {}),
    },
    security: [{ oidc: [] }, ...(bearer ? [{ oidcBearer: [] }] : [])],
  });
}
