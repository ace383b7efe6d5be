import * as yup from 'yup';
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SANITIZE } from './defaults.js';
import { parseCidr } from '../core/cidr.js';
import { isHostPattern } from '../core/kits/http-edge/index.js';
import { duration } from './duration.js';
import { ROLES } from '../core/contract/access.js';

const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
const LOG_FORMATS = ['text', 'json'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = (typeof LOG_FORMATS)[number];

const unknownKeys = '${path} has unknown key(s): ${properties}';

/** `context-path` as SBA normalises it: a leading slash, no trailing slash, `/` alone is none. */
export function normaliseContextPath(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

const regex = yup.string().test('regex', '${path} is not a valid regular expression: ${value}', (value) => {
  if (value === undefined) return true;
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
});

const cidr = yup.string().trim().required()
  .test('cidr', '${path} must be an IP address or a CIDR such as 10.0.0.0/8 (got ${value})', (value) => parseCidr(value) !== undefined);

const endpointIds = (fallback: string[]) => yup.array(yup.string().trim().min(1).required()).default(fallback);
const SUBJECT = /^(user|group|token):.+$/s;

/** `access.grants[]`: a role over applications, for subjects (see docs/access.md). */
const grant = yup.object({
  subjects: yup.array(yup.string().trim().required()
    .test('subject', '${path} must be user:NAME, group:NAME, token:NAME or "*" (got ${value})', (value) => value === '*' || SUBJECT.test(value)))
    .min(1).required(),
  role: yup.string().oneOf(ROLES).required(),
  applications: yup.array(yup.string().trim().min(1).required()).min(1).default(['*']),
}).exact(unknownKeys);

/** `access`: who may do what to which applications. Absent: every signed-in caller is admin, as before it existed. */
const access = yup.object({
  grants: yup.array(grant).default([]),
  'sensitive-endpoints': endpointIds(['heapdump']),
  'admin-endpoints': endpointIds(['shutdown']),
}).exact(unknownKeys).optional().default(undefined);

const credentials = yup.object({
  'user-name': yup.string().nullable().default(null),
  'user-password': yup.string().nullable().default(null),
}).exact(unknownKeys);

/**
 * The keys the kernel itself reads. Plugin sections are validated by each plugin's own schema;
 * a top-level key that is neither is an error (CONTRACT §2).
 */
export const kernelSchema = yup.object({
  port: yup.number().integer().min(0).max(65535).default(DEFAULT_PORT),
  host: yup.string().trim().min(1).default(DEFAULT_HOST),
  'context-path': yup.string().default('').transform((value: unknown) => (typeof value === 'string' ? normaliseContextPath(value) : value))
    .matches(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*$/, { message: '${path} must be a URL path such as /admin', excludeEmptyString: true }),
  plugins: yup.array(yup.string().trim().min(1).required()).optional(),
  'log-level': yup.string().oneOf(LOG_LEVELS).default('info'),
  'log-format': yup.string().oneOf(LOG_FORMATS).default('text'),
  'metadata-keys-to-sanitize': yup.array(regex.required()).default(DEFAULT_SANITIZE),
  'event-store': yup.object({
    'max-events-per-instance': yup.number().integer().min(10).default(100),
    'retention-after-deregistration': duration().min(0).default(3_600_000),
    /** Deregistered histories kept at most; beyond it the oldest deregistration is dropped first, whatever the retention says. */
    'max-deregistered-instances': yup.number().integer().min(0).default(10_000),
    /** Status details and info larger than this (bytes of JSON) are cut, the cut noted in them. */
    'max-details-bytes': yup.number().integer().min(1024).default(64 * 1024),
  }).exact(unknownKeys).default({}),
  'instance-auth': yup.object({
    enabled: yup.boolean().default(true),
    'default-user-name': yup.string().nullable().default(null),
    'default-password': yup.string().nullable().default(null),
    'service-map': yup.lazy((map: unknown) => yup.object(
      Object.fromEntries(Object.keys(map ?? {}).map((name) => [name, credentials])),
    ).default({})),
  }).exact(unknownKeys).default({}),
  /**
   * SBA's SSRF protection, for every call to an instance (health, info, detection, proxy): when
   * enabled, internal addresses are refused unless inside `allowed-cidrs`. Formerly
   * `proxy.ssrf-protection`, still read (with a deprecation line) when this key is absent.
   */
  'ssrf-protection': yup.object({
    enabled: yup.boolean().default(false),
    'allowed-cidrs': yup.array(cidr).default([]),
    'allowed-schemes': yup.array(yup.string().trim().lowercase().min(1).required()).default(['http', 'https']),
  }).exact(unknownKeys).default({}),
  /**
   * The HTTP server's own limits (docs/security.md): what a client without credentials can
   * hold (connections, slow headers) and which `Host` names are answered (DNS rebinding).
   */
  server: yup.object({
    'max-connections': yup.number().integer().min(1).max(1_000_000).default(10_000),
    'max-connections-per-address': yup.number().integer().min(0).default(256),
    'per-address-exempt': yup.array(cidr).default(['127.0.0.0/8', '::1']),
    'headers-timeout': duration().min(100).max(300_000).default(10_000),
    'allowed-hosts': yup.array(yup.string().trim().required()
      .test('host', '${path} must be a host name, *.domain, an IP address or * (no scheme, no port; got ${value})', (value) => isHostPattern(value))).default([]),
  }).exact(unknownKeys).default({}),
  access,
  'plugin-timeout': duration().min(1).default(10_000),
  'shutdown-timeout': duration().min(100).max(60_000).default(4_500),
}).noUnknown(false);

export type KernelConfig = yup.InferType<typeof kernelSchema>;
export const KERNEL_KEYS: readonly string[] = Object.keys(kernelSchema.fields);
