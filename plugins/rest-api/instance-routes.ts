import { HttpError, instanceIdOf, type PluginContext, type VigilRequest } from '../../core/plugin-api.js';
import { EventApplications, scopeOf } from '../../core/kits/access-scope/index.js';
import { HEALTH_GROUPS } from '../../core/kits/services/index.js';
import { parseRegistration } from '../../core/domain/index.js';
import { turnSlot } from '../../core/kits/runtime/index.js';

/** Registrations made over HTTP are marked so, whatever the body says (SBA does the same). */
const SOURCE = 'http-api';

export function instanceRoutes({ http, registry: instances, views, log, services }: PluginContext<unknown>): void {
  http.route('POST', '/instances', async (req, res) => {
    const parsed = parseRegistration(await http.readJson(req), SOURCE, (healthUrl) => instances.get(instanceIdOf(healthUrl))?.registration);
    if (!parsed.ok) throw new HttpError(400, `invalid registration: ${parsed.problems.join('; ')}`);
    // A heartbeat that changes nothing records nothing and is answered at once. One that changes
    // something is news to every plugin, and a thousand applications starting at once must not
    // hold up every other client: those take turns.
    const { id, event } = await instances.register(parsed.registration, { turn: turnSlot });
    if (event?.type === 'REGISTERED') log.info(`registered ${id}`, { name: parsed.registration.name });
    http.sendJson(res, 201, { id }, { location: `${http.contextPath}/instances/${id}` });
  }, { action: 'instances.register' });

  http.route('GET', '/instances', (req, res) => {
    const name = singleQuery(req, 'name');
    const scope = scopeOf(req);
    const listed = instances.list(name);
    // Only the caller's applications: a filter that costs less than the views it saves.
    const shown = scope.all ? listed : listed.filter((instance) => scope.allows(instance.registration?.name ?? ''));
    http.sendJson(res, 200, shown.map(views.instance));
  }, { action: 'instances.read' });

  // Written in pieces as the socket drains (20,000 instances with full histories are millions of
  // events); the events applied when the request came are the list, later ones go to the streams.
  // A cluster node reads the histories it does not hold from Redis as the socket drains.
  // A caller granted some applications gets their events: those recorded while the instance was in one.
  http.route('GET', '/instances/events', (req, res) => http.sendJsonArray(res, 200, EventApplications.filterBatches(instances.readEvents(0), scopeOf(req), instances), views.event),
    { action: 'instances.read' });

  http.route('GET', '/instances/:id', (req, res) => {
    const instance = instances.get(req.params.id!);
    if (!instance?.registered) throw new HttpError(404, `instance ${req.params.id} not found`);
    http.sendJson(res, 200, views.instance(instance));
  }, { action: 'instances.read', target: 'instance' });

  // As SBA: a deregistered instance still held answers (with `[]`); only an id never seen, or no
  // longer held, is 404. Without a plugin that reads health (no `monitor`) there are no groups.
  http.route('GET', '/instances/:id/health-groups', async (req, res) => {
    const id = req.params.id!;
    if (!instances.get(id)) throw new HttpError(404, `instance ${id} not found`);
    const groups = services.use(HEALTH_GROUPS);
    http.sendJson(res, 200, groups ? await groups.groupsOf(id) : []);
  }, { action: 'instances.read', target: 'instance' });

  http.route('DELETE', '/instances/:id', async (req, res) => {
    const id = req.params.id!;
    // An id still held after deregistration answers 204 again, as SBA does; one never seen is 404.
    if (!(await instances.deregister(id))) throw new HttpError(404, `instance ${id} not found`);
    log.info(`deregistered ${id}`);
    res.writeHead(204).end();
  }, { action: 'instances.deregister', target: 'instance' });
}

/** A query parameter that may appear at most once. */
export function singleQuery(req: VigilRequest, key: string): string | undefined {
  const value = req.query[key];
  if (Array.isArray(value)) throw new HttpError(400, `query parameter '${key}' must be given once`);
  return value;
}
