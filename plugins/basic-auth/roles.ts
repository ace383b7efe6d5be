import { LIVENESS_PATH, READINESS_PATH } from '../../core/plugin-api.js';
import type { Role } from './config.js';

/** What the `metrics` role may read, below the context path: the scrape, the targets and the probes. */
const OPS_READS = ['/metrics', '/prometheus/sd', LIVENESS_PATH, READINESS_PATH];

/**
 * What a role may do. `registration` is for Spring Boot Admin clients: they only register
 * (POST /instances) and deregister (DELETE /instances/{id}). Letting them read the registry or
 * use the proxy would turn a leaked client credential plus the proxy into a way to make the
 * server call any URL (SBA issue #5452), so everything else is refused. `metrics` is for
 * Prometheus: it reads `GET /metrics` and `GET /prometheus/sd` (and the probes), nothing else
 * (not the registry, whose metadata may be sensitive, nor the proxy). Paths are compared exactly,
 * as received: a variant (a trailing slash, an encoded letter) is refused, never let through.
 */
export function isPermitted(role: Role, method: string, path: string, contextPath: string): boolean {
  if (role === 'admin') return true;
  if (!path.startsWith(`${contextPath}/`)) return false;
  const rest = path.slice(contextPath.length);
  if (role === 'metrics') return (method === 'GET' || method === 'HEAD') && OPS_READS.includes(rest);
  if (method === 'POST') return rest === '/instances';
  if (method === 'DELETE') return /^\/instances\/[^/]+$/.test(rest);
  return false;
}

/** The message of a 403: what the role may do instead. */
export function refusalOf(role: Role, contextPath: string): string {
  const cp = contextPath;
  if (role === 'metrics') return `role "metrics" may only read ${OPS_READS.map((path) => `${cp}${path}`).join(', ')}`;
  return `role "${role}" may only register (POST ${cp}/instances) and deregister (DELETE ${cp}/instances/{id})`;
}

/** Whether a request is a probe an orchestrator may send without credentials (`anonymous-probes`). */
export function isAnonymousProbe(method: string, path: string, contextPath: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === `${contextPath}${LIVENESS_PATH}` || path === `${contextPath}${READINESS_PATH}`);
}
