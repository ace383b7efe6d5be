import { HttpError, type HttpRoutes } from '../../../core/plugin-api.js';
import { scopeOf } from '../../../core/kits/access-scope/index.js';
import { creatorOf, mayManageWindow } from './access.js';
import { newWindowOf } from './request.js';
import { WindowLimitError, type MaintenanceStore } from './store.js';

const FORBIDDEN = 'you may not manage maintenance windows of these applications';

/**
 * The maintenance API: `POST /maintenance` (201 with the window, `Location` naming it),
 * `GET /maintenance` (windows running or to come, recurring ones included, each with `active`),
 * `GET /maintenance/{id}`, `DELETE /maintenance/{id}` (204; a running window ends now, one to come
 * is removed; a recurring one lives in the config: 409). `changed` runs after each change, so
 * this node acts on it at once instead of at its next round.
 */
export function maintenanceRoutes(http: HttpRoutes, store: MaintenanceStore, changed: () => void, applicationOf: (id: string) => string | undefined): void {
  http.route('POST', '/maintenance', async (req, res) => {
    const window = newWindowOf(await http.readJson(req), Date.now());
    if (!mayManageWindow(scopeOf(req), window, applicationOf)) throw new HttpError(403, FORBIDDEN);
    const made = await store.create(window, creatorOf(req.principal?.name ?? req.user)).catch((error: unknown) => {
      throw error instanceof WindowLimitError ? new HttpError(429, error.message) : error;
    });
    changed();
    http.sendJson(res, 201, made, { location: `${http.contextPath}/maintenance/${encodeURIComponent(made.id)}` });
  }, { action: 'maintenance.manage' });

  http.route('GET', '/maintenance', async (_req, res) => {
    http.sendJson(res, 200, await store.list());
  }, { action: 'notifications.read' });

  http.route('GET', '/maintenance/:id', async (req, res) => {
    const window = await store.get(req.params.id!);
    if (!window) throw new HttpError(404, `maintenance window ${req.params.id!.slice(0, 80)} not found (or over)`);
    http.sendJson(res, 200, window);
  }, { action: 'notifications.read' });

  http.route('DELETE', '/maintenance/:id', async (req, res) => {
    const id = req.params.id!;
    const stored = await store.stored(id);
    if (stored && !mayManageWindow(scopeOf(req), stored, applicationOf)) throw new HttpError(403, FORBIDDEN);
    const outcome = await store.end(id);
    if (outcome === 'missing') throw new HttpError(404, `maintenance window ${id.slice(0, 80)} not found (or over)`);
    if (outcome === 'recurring') throw new HttpError(409, `maintenance window ${id} is a recurring window of notify.maintenance in the config file: remove it there (and reload)`);
    changed();
    res.writeHead(204).end();
  }, { action: 'maintenance.manage' });
}
