import type { IncomingMessage } from 'node:http';
import type { OriginTrust } from '../../plugin-api.js';

/** Methods a plain HTML form or a preflight-free fetch can send that change something. */
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Why an unsafe request is refused as cross-site request forgery, or undefined to let it through.
 *
 * A browser marks where a request comes from: `Sec-Fetch-Site` (every current browser) and
 * `Origin` (every POST, PUT, PATCH, DELETE). A request it marks as coming from another site
 * carries the operator's cached Basic credentials all the same, so it is refused unless the
 * origin is Vigil's own or one an operator trusted. Clients that send neither header (Spring Boot
 * Admin clients, curl, scripts) are not browsers acting for someone else and pass unchanged.
 *
 * Vigil's own origin is the one the request was sent to: the `Host` header, or the
 * `X-Forwarded-Host` a reverse proxy sets (a page cannot set it on a form post, and a fetch that
 * does needs a preflight, which no trusted origin answers for it). The scheme is not compared:
 * TLS often ends at a proxy in front, where `http` and `https` name the same daemon.
 */
export function crossSiteRefusal(req: IncomingMessage, trusted: readonly OriginTrust[]): string | undefined {
  if (!UNSAFE.has(req.method ?? '')) return undefined;
  const origin = single(req.headers.origin);
  const site = single(req.headers['sec-fetch-site'])?.toLowerCase();
  if (origin === undefined) {
    return site === 'cross-site' ? 'cross-site request refused (Sec-Fetch-Site: cross-site without an Origin)' : undefined;
  }
  if (isOwnOrigin(origin, req) || trusted.some((trust) => trust(origin))) return undefined;
  return `cross-site request refused: origin ${JSON.stringify(origin.slice(0, 200))} is neither this server's nor an allowed one`;
}

function isOwnOrigin(origin: string, req: IncomingMessage): boolean {
  let host: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    host = url.host;
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and garbage are never our own
  }
  const targets = [single(req.headers.host), ...(single(req.headers['x-forwarded-host'])?.split(',') ?? [])];
  return targets.some((target) => target !== undefined && sameHost(target.trim(), host));
}

/** `Host` may carry the default port or differ in case; the origin's `host` has neither. */
function sameHost(target: string, originHost: string): boolean {
  const lower = target.toLowerCase();
  return lower === originHost || lower === `${originHost}:80` || lower === `${originHost}:443`;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
