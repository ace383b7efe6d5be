import * as yup from 'yup';
import { ROLES, duration, parseCidr, type Role } from '../../core/plugin-api.js';
import { isHashed, parseScrypt } from './scrypt-hash.js';
import { canonicalTokenHash, hashToken } from './token-hash.js';

// `exact`, not `noUnknown`: in yup 1.7 `noUnknown` strips unknown keys while casting, so its
// own test never sees them and a typo would pass silently.
const unknownKeys = 'unknown key(s): ${properties}';
export { ROLES, type Role };

/**
 * Shorthand for a grant of this role over every application (the roles: docs/access.md). Without
 * it: `admin` when the config has no `access` section, else only what `access.grants` give.
 */
const role = yup.string().oneOf(ROLES, '${path} must be one of: ${values}').optional();

/** When a token stops working: an ISO date (its first instant, UTC) or date-time with a zone. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const expires = yup.mixed<string | Date>()
  // YAML reads an unquoted date (and date-time) as a timestamp.
  .transform((value: unknown) => (value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : value))
  .test('iso', '${path} must be an ISO date (2027-01-31) or date-time with a zone (2027-01-31T18:00:00Z)',
    (value) => value === undefined || (typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))))
  .optional();

const user = yup.object({
  // A colon cannot travel in Basic credentials (it separates user from password).
  username: yup.string().trim().required('${path} is required').matches(/^[^:\p{Cc}]+$/u, '${path} must not contain ":" or control characters'),
  password: yup.string().required('${path} is required (plain text, or a hash from `vigil hash-password`)')
    .test('hash', '${path} starts like a scrypt hash but is malformed; make a new one with `vigil hash-password`', (value) =>
      value === undefined || !isHashed(value) || parseScrypt(value) !== undefined),
  role,
}).exact(unknownKeys).typeError('${path} must be a mapping with username, password and optionally role');

const token = yup.object({
  name: yup.string().trim().required('${path} is required (it names the token in logs)'),
  'token-hash': yup.string()
    .test('hash', '${path} must be sha256$<64 hex digits>, 64 hex digits, or a hash from `vigil hash-password`', (value) =>
      value === undefined || canonicalTokenHash(value) !== undefined)
    .transform((value: unknown) => (typeof value === 'string' ? canonicalTokenHash(value) ?? value : value)),
  token: yup.string().min(1, '${path} must not be empty'),
  role,
  expires,
})
  .exact(unknownKeys)
  .typeError('${path} must be a mapping with name, token or token-hash, and optionally role')
  // A plain `token` is replaced by its hash here, during validation, so the plain value never
  // reaches the plugin's config (which lives as long as the daemon).
  .transform((value: unknown) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const { token: plain, ...rest } = value as Record<string, unknown>;
    // YAML reads an all-digit token as a number; it is still a token.
    if ((typeof plain !== 'string' && typeof plain !== 'number') || plain === '' || 'token-hash' in rest) return value;
    return { ...rest, 'token-hash': hashToken(String(plain)) };
  })
  .test('one-of', '${path} needs either token-hash or token (not both)', (value) =>
    value === undefined || (value['token-hash'] === undefined) !== (value.token === undefined));

function count(min: number, max: number, fallback: number) {
  return yup.number().typeError('${path} must be a whole number').integer('${path} must be a whole number')
    .min(min).max(max).default(fallback);
}

function duplicates(names: readonly (string | undefined)[]): string[] {
  const given = names.filter((name): name is string => typeof name === 'string');
  return [...new Set(given.filter((name, index) => given.indexOf(name) !== index))];
}

/** The `basic-auth` section. At least one user or token: an empty list would lock everyone out. */
export const basicAuthSchema = yup.object({
  /** Shown by browsers in the login dialog; must fit in a quoted-string. */
  realm: yup.string().trim().min(1).matches(/^[^"\\\p{Cc}]+$/u, '${path} must not contain quotes, backslashes or control characters').default('Vigil'),
  /** `GET`/`HEAD` of exactly the two probe paths pass without credentials (orchestrators send none). */
  'anonymous-probes': yup.boolean().default(false),
  users: yup.array(user.required('${path} must not be empty')).typeError('${path} must be a list of users').default([])
    .test('unique', (users, context) => {
      const repeated = duplicates((users ?? []).map((entry) => entry?.username));
      return repeated.length === 0 || context.createError({ message: `username(s) listed twice: ${repeated.join(', ')}` });
    }),
  tokens: yup.array(token.required('${path} must not be empty')).typeError('${path} must be a list of tokens').default([])
    .test('unique', (tokens, context) => {
      const repeated = duplicates((tokens ?? []).map((entry) => entry?.name));
      return repeated.length === 0 || context.createError({ message: `token name(s) listed twice: ${repeated.join(', ')}` });
    }),
  // A flood of wrong passwords must not stall the daemon (docs/plugins.md, `basic-auth`): scrypt runs are
  // bounded, the excess is refused with 429, and repeated failures for one user name from one
  // address are slowed (`failures-per-address` keeps its name: it is counted per address and user name).
  'max-concurrent-verifications': count(1, 64, 1),
  'max-queued-verifications': count(0, 100_000, 64),
  'failures-per-address': count(1, 1_000_000, 10),
  'failure-refill-interval': duration().min(1).default(5_000),
  'tracked-addresses': count(1, 10_000_000, 10_000),
  /** Reverse proxies whose `X-Forwarded-For` names the client (for the failure budget); no one else's is believed. */
  'trusted-proxies': yup.array(yup.string().trim().required()
    .test('cidr', '${path} must be an IP address or a CIDR such as 10.0.0.0/8 (got ${value})', (value) => parseCidr(value) !== undefined))
    .typeError('${path} must be a list of IP addresses or CIDRs').default([]),
})
  .exact(unknownKeys)
  .typeError('must be a mapping of keys to values')
  .default({})
  .test('someone', 'at least one entry in users or tokens is required', (value) =>
    value === undefined || !Array.isArray(value.users) || !Array.isArray(value.tokens) || value.users.length + value.tokens.length > 0);

export type BasicAuthConfig = yup.InferType<typeof basicAuthSchema>;
