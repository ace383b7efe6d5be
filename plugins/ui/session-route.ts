import type { HttpRoutes } from '../../core/plugin-api.js';
import { ASSET_PREFIX } from './app-folder.js';

/** What the dashboard shows in its header: who is signed in, and how to sign in again or out. */
export interface SessionInfo {
  /** The signed-in principal's name; null without authentication. */
  readonly name: string | null;
  readonly via: string | null;
  /** Where a browser signs in (`/login`, below the context path) when a plugin serves it; null when the browser's own dialog does. */
  readonly signIn: string | null;
  /** Where to POST to sign out, when a plugin serves it (`/logout`); null when there is no signing out (HTTP Basic). */
  readonly signOut: string | null;
  /** `GET /audit` when the audit trail is loaded (`audit`); null otherwise. Who may read it, `GET /access/me` tells. */
  readonly audit: string | null;
}

/**
 * `GET /ui/session`: the principal of the request, as the dashboard's header shows it. The
 * sign-in and sign-out paths are the contract's (`oidc` serves them); they are offered only when
 * some plugin registered them. Under the dashboard's prefix: it is the dashboard's, not an API.
 */
export function sessionRoute(http: HttpRoutes): void {
  let paths: { signIn: string | null; signOut: string | null; audit: string | null } | undefined;
  // Read at the first request: every plugin has registered its routes by then.
  const pathsOf = () => {
    if (paths) return paths;
    const routes = http.routes();
    const has = (method: string, path: string) => routes.some((route) => route.method === method && route.path === `${http.contextPath}${path}`);
    paths = { signIn: has('GET', '/login') ? '/login' : null, signOut: has('POST', '/logout') ? '/logout' : null, audit: has('GET', '/audit') ? '/audit' : null };
    return paths;
  };
  http.route('GET', `/${ASSET_PREFIX}/session`, (req, res) => {
    const principal = req.principal;
    const body: SessionInfo = {
      name: principal && principal.kind !== 'anonymous' ? principal.name : req.user ?? null,
      via: principal?.via ?? null,
      ...pathsOf(),
    };
    http.sendJson(res, 200, body, { 'cache-control': 'no-store' });
  }, { action: 'dashboard.read' });
}
