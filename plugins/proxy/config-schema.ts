import * as yup from 'yup';
import { duration } from '../../core/plugin-api.js';

// `exact`, not `noUnknown`: in yup 1.7 `noUnknown` strips unknown keys while casting and then has
// none left to report; a typo in `proxy:` must not pass silently (CONTRACT §2).
const unknownKeys = '${path} has unknown key(s): ${properties}';

/** SBA's `spring.boot.admin.instance-proxy.ignored-headers` default. */
export const DEFAULT_IGNORED_HEADERS = ['Cookie', 'Set-Cookie', 'Authorization'] as const;

/**
 * The `proxy` section. `timeout` covers the time until the instance's response headers arrive;
 * the body then streams for as long as it keeps moving (`body-idle-timeout` between chunks), so
 * a multi-GB heapdump is never cut off by the header timeout.
 */
export const proxyConfigSchema = yup.object({
  timeout: duration().min(1).default(10_000),
  /** Longest silence between two body chunks of a streamed response; 0 turns it off. */
  'body-idle-timeout': duration().min(0).default(60_000),
  'ignored-headers': yup.array(yup.string().trim().min(1).required()).default([...DEFAULT_IGNORED_HEADERS]),
  /**
   * All the answers one fan-out holds, together: past it the answers still arriving are left out
   * (each named in the result), so a large application cannot make one request hold gigabytes.
   */
  'fan-out-max-bytes': yup.number().integer().min(1).default(32 * 1024 * 1024),
  /** Fan-outs served at once; the next one gets 503 with Retry-After. With the budget above, a bound on their memory. */
  'max-concurrent-fan-outs': yup.number().integer().min(1).max(1024).default(4),
  /** `/applications/{name}/actuator/**`: how many instances are called at once, and how much of each answer is kept. */
  'fan-out': yup.object({
    concurrency: yup.number().integer().min(1).max(256).default(8),
    'max-response-bytes': yup.number().integer().min(1).default(10 * 1024 * 1024),
  }).exact(unknownKeys).default({}),
}).exact(unknownKeys).default({});

export type ProxyConfig = yup.InferType<typeof proxyConfigSchema>;
