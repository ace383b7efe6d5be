import type { Role } from './config.js';

/**
 * What a role may do. `registration` is for Spring Boot Admin clients: they only register
 * (POST /instances) and deregister (DELETE /instances/{id}). Letting them read the registry or
 * use the proxy would turn a leaked client credential plus the proxy into a way to make the
 * server call any URL (SBA issue #5452), so everything else is refused.
 */
export function isPermitted(role: Role, method: string, path: string, contextPath: string): boolean {
  if (role === 'admin') return true;
  if (!path.startsWith(`${contextPath}/`)) return false;
  const rest = path.slice(contextPath.length);
  if (method === 'POST') return rest === '/instances';
  if (method === 'DELETE') return /^\/instances\/[^/]+$/.test(rest);
  return false;
}
