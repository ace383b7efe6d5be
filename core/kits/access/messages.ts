import type { Role } from '../../plugin-api.js';

/** What the `metrics` role may read, below the context path: the scrape, the targets and the probes. */
const OPS_READS = ['/metrics', '/prometheus/sd', '/health/liveness', '/health/readiness'];

/** The 403 message of a machine role: what it may do instead. */
export function machineRefusal(role: Role, contextPath: string): string {
  const cp = contextPath;
  if (role === 'metrics') return `role "metrics" may only read ${OPS_READS.map((path) => `${cp}${path}`).join(', ')}`;
  return `role "${role}" may only register (POST ${cp}/instances) and deregister (DELETE ${cp}/instances/{id})`;
}
