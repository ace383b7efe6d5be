import { HttpError, type HttpRoutes, type VigilRequest } from '../../core/plugin-api.js';
import { FilterLimitError, type FilterStore } from './filters.js';

/**
 * SBA's filter API, exactly (NotificationFilterController): `GET /notifications/filters`,
 * `POST /notifications/filters?instanceId=&applicationName=&ttl=` (ttl in ms from now; 200 with
 * the filter), `DELETE /notifications/filters/{id}` (200 with an empty body, or 404). Its errors
 * come in the contract's JSON error body instead of SBA's bare text.
 */
/** Longer than any instance id or application name Vigil keeps. */
const MAX_TARGET = 1024;

export function filterRoutes(http: HttpRoutes, filters: FilterStore): void {
  http.route('GET', '/notifications/filters', async (_req, res) => {
    http.sendJson(res, 200, await filters.list());
  }, { action: 'notifications.read' });

  http.route('POST', '/notifications/filters', async (req, res) => {
    const instanceId = single(req, 'instanceId');
    const applicationName = single(req, 'applicationName');
    const ttlText = single(req, 'ttl');
    let ttl: number | undefined;
    if (ttlText !== undefined && ttlText.trim() !== '') {
      if (!/^-?\d{1,15}$/.test(ttlText.trim())) throw new HttpError(400, "'ttl' must be a whole number of milliseconds");
      ttl = Number(ttlText.trim());
    }
    const value = hasText(instanceId) ? instanceId : hasText(applicationName) ? applicationName : undefined;
    if (value === undefined) throw new HttpError(400, "Either 'instanceId' or 'applicationName' must be set");
    const target = hasText(instanceId) ? { instanceId: value } : { applicationName: value };
    if (value.length > MAX_TARGET) throw new HttpError(400, `the instanceId or applicationName of a filter has at most ${MAX_TARGET} characters`);
    const filter = await filters.create(target, ttl).catch((error: unknown) => {
      throw error instanceof FilterLimitError ? new HttpError(429, error.message) : error;
    });
    http.sendJson(res, 200, filter);
  }, { action: 'notifications.manage' });

  http.route('DELETE', '/notifications/filters/:id', async (req, res) => {
    const id = req.params.id!;
    if (!(await filters.remove(id))) throw new HttpError(404, `notification filter ${id} not found`);
    res.writeHead(200, { 'content-length': '0' }).end();
  }, { action: 'notifications.manage' });
}

function single(req: VigilRequest, key: string): string | undefined {
  const value = req.query[key];
  if (Array.isArray(value)) throw new HttpError(400, `query parameter '${key}' must be given once`);
  return value;
}

function hasText(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}
