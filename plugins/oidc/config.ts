import * as yup from 'yup';
import { duration } from '../../core/plugin-api.js';
import { parseClaimPath } from './claim-path.js';
import { isLoopbackHost } from './loopback.js';

const unknownKeys = 'unknown key(s): ${properties}';

/** An absolute URL without query or fragment; `http:` only on a loopback host (tests, a local IdP). */
function url(what: string, why: string) {
  return yup.string().typeError('${path} must be a URL').trim()
    .test('url', (value, context) => {
      if (value === undefined || value === '') return true;
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return context.createError({ message: `\${path} must be an absolute https:// URL (got ${JSON.stringify(value)})` });
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return context.createError({ message: '${path} must be an https:// URL' });
      if (parsed.search !== '' || parsed.hash !== '') return context.createError({ message: `\${path} must be ${what} without a query or fragment` });
      if (parsed.username !== '' || parsed.password !== '') return context.createError({ message: '${path} must not carry credentials' });
      if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname)) {
        return context.createError({ message: `\${path} must be https:// (http:// only on a loopback address such as 127.0.0.1): ${why}` });
      }
      return true;
    });
}

const claimPath = (fallback: string) => yup.string().typeError('${path} must be a claim name or a dotted path').trim().default(fallback)
  .test('path', '${path} must be a claim name or a dotted path such as realm_access.roles (a literal dot is written \\.)',
    (value) => value === undefined || parseClaimPath(value) !== undefined);

/** The `oidc` section: single sign-on through an OpenID Connect provider (authorization code flow, PKCE, state, nonce). */
export const oidcSchema = yup.object({
  /** The provider's issuer; its `/.well-known/openid-configuration` is read from it. */
  issuer: url('the issuer', 'tokens and the sign-in page must not travel in clear text').required('${path} is required (the identity provider\'s issuer URL)'),
  'client-id': yup.string().typeError('${path} must be a string').trim().required('${path} is required (the client registered for Vigil at the provider)'),
  /** Omitted for a public client, which proves itself with PKCE alone. */
  'client-secret': yup.string().typeError('${path} must be a string').min(1, '${path} must not be empty (omit it for a public client)'),
  scopes: yup.array(yup.string().trim().required().matches(/^[\x21\x23-\x5B\x5D-\x7E]+$/, '${path} must be a scope token (no spaces or quotes)'))
    .typeError('${path} must be a list of scopes').default(['openid', 'profile', 'email'])
    .test('openid', '${path} must include openid', (value) => value === undefined || value.includes('openid')),
  'username-claim': claimPath('preferred_username'),
  'groups-claim': claimPath('groups'),
  /** The public URL Vigil is opened at (context path included); default: the origin each request was sent to. */
  'base-url': url('Vigil\'s public URL', 'the session cookie must be Secure on anything but loopback').default('')
    .transform((value: unknown) => (typeof value === 'string' ? value.replace(/\/+$/, '') : value)),
  session: yup.object({
    /** Sign in again after this long, however busy the session. */
    ttl: duration().min(1000, '${path} must be at least 1s').default(8 * 3_600_000),
    /** A session unused this long ends. */
    'idle-timeout': duration().min(1000, '${path} must be at least 1s').default(3_600_000),
  }).exact(unknownKeys).typeError('${path} must be a mapping with ttl and idle-timeout').default({}),
  /** Whether `Authorization: Bearer <JWT access token from the issuer>` is accepted (scripts holding a token from the IdP). */
  'accept-access-tokens': yup.boolean().typeError('${path} must be true or false').default(false),
  /** The `aud` an accepted access token must carry; default: the client id. */
  audience: yup.string().typeError('${path} must be a string').trim().default(''),
})
  .exact(unknownKeys)
  .typeError('must be a mapping of keys to values')
  .default(undefined)
  .required('the oidc section is required: issuer and client-id at least');

export type OidcConfig = yup.InferType<typeof oidcSchema>;
