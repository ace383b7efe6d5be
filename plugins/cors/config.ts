import * as yup from 'yup';
import { normaliseOrigin } from './origin.js';

// `exact`, not `noUnknown`: in yup 1.7 `noUnknown` strips unknown keys while casting, so its
// own test never sees them and a typo would pass silently.
const unknownKeys = 'unknown key(s): ${properties}';
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A list given either as a comma-separated string (`GET,POST`, as Spring Boot writes it) or as a
 * YAML list. Empty items are dropped so `"a, b,"` is two items.
 */
function list(what: string) {
  return yup
    .array(yup.string().trim().required())
    .transform((value: unknown, original: unknown) =>
      typeof original === 'string' ? original.split(',').map((item) => item.trim()).filter(Boolean) : value)
    .typeError(`\${path} must be a comma-separated string or a list of ${what}`);
}

/** Header or method names: RFC 9110 tokens, or the wildcard `*`. */
function tokens(what: string) {
  return list(what).test('tokens', `\${path} must list ${what} (letters, digits and -) or *`, (items) =>
    (items ?? []).every((item) => TOKEN.test(item)));
}

/**
 * The `cors` section (seed "Limits" 6). Defaults are what a production operator expects from a
 * security feature that is switched on but not yet configured: no origin is allowed until one is
 * listed, no credentials, and the methods and headers Vigil's own API uses.
 */
export const corsSchema = yup.object({
  /** Origins allowed to read responses: `https://ops.example.com`, a list, or `*`. Default: none. */
  'allowed-origins': list('origins')
    .default([])
    .test('origins', '${path} must list origins such as https://ops.example.com (scheme, host, optional port, no path) or *', (items) =>
      (items ?? []).every((item) => item === '*' || normaliseOrigin(item) !== undefined))
    .transform((value: unknown) => (Array.isArray(value) ? value.map((item: string) => normaliseOrigin(item) ?? item) : value)),
  /** Methods a preflight may ask for. Default: every method the API serves. */
  'allowed-methods': tokens('HTTP methods')
    .default(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
    .transform((value: unknown) => (Array.isArray(value) ? value.map((item: string) => item.toUpperCase()) : value)),
  /**
   * Request headers a preflight may ask for; `*` echoes whatever the browser asks. Default: the
   * headers the API reads (JSON bodies, credentials) plus the one XHR libraries add.
   */
  'allowed-headers': tokens('header names').default(['Accept', 'Authorization', 'Content-Type', 'X-Requested-With']),
  /** Response headers scripts may read. Default: Location, the only meaningful one (POST /instances). */
  'exposed-headers': tokens('header names').default(['Location']),
  /** Whether browsers may send cookies and Authorization cross-origin. Default: no. */
  'allow-credentials': yup.boolean().typeError('${path} must be true or false').default(false),
  /** How long (seconds) a browser may cache a preflight. Default: 30 minutes, as Spring. */
  'max-age': yup
    .number()
    .typeError('${path} must be a whole number of seconds (got ${originalValue})')
    .integer('${path} must be a whole number of seconds')
    .min(0)
    .default(1800),
})
  .exact(unknownKeys)
  .typeError('must be a mapping of keys to values')
  .default({})
  // `*` with credentials would let any web page read the API with the user's stored credentials.
  // Browsers refuse the literal combination; echoing the origin instead would silently open that
  // door, so it is a config error (as in Spring's CorsConfiguration): list the origins instead.
  .test('credentials-with-wildcard', (value, context) => {
    const origins: unknown = value?.['allowed-origins'];
    if (!value?.['allow-credentials'] || !Array.isArray(origins) || !origins.includes('*')) return true;
    return context.createError({
      path: 'allow-credentials',
      message: 'allow-credentials cannot be true while allowed-origins is "*" (any web page could read the API with the user\'s credentials); list the allowed origins',
    });
  });

export type CorsConfig = yup.InferType<typeof corsSchema>;
