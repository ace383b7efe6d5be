import { LIVENESS_PATH, READINESS_PATH } from '../../core/plugin-api.js';

// What each role may do is decided by the kernel's access check (core/access/); this plugin only
// says who is calling, and which role its config gives the caller.

/** Whether a request is a probe an orchestrator may send without credentials (`anonymous-probes`). */
export function isAnonymousProbe(method: string, path: string, contextPath: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === `${contextPath}${LIVENESS_PATH}` || path === `${contextPath}${READINESS_PATH}`);
}
