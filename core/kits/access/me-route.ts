import type { AccessMe, PluginContext } from '../../plugin-api.js';
import type { AccessPolicy } from './policy.js';

export const ACCESS_ME_PATH = '/access/me';

/**
 * `GET /access/me`: who the caller is and what it was granted, so the dashboard shows only what
 * the caller may use. A request nobody identified (no authentication plugin) may do everything.
 */
export function accessMeRoute(http: Pick<PluginContext['http'], 'route' | 'sendJson'>, policy: () => AccessPolicy): void {
  http.route('GET', ACCESS_ME_PATH, (req, res) => {
    const principal = req.principal;
    const { sensitive, admin } = policy().elevatedEndpoints;
    const endpoints = { sensitiveEndpoints: sensitive, adminEndpoints: admin };
    const me: AccessMe = principal === undefined
      ? { name: 'anonymous', kind: 'anonymous', via: null, groups: [], grants: [{ role: 'admin', applications: ['*'] }], ...endpoints }
      : { name: principal.name, kind: principal.kind, via: principal.via, groups: [...principal.groups], grants: policy().grantsOf(principal), ...endpoints };
    http.sendJson(res, 200, me, { 'cache-control': 'no-store' });
  }, { action: 'access.read' });
}
