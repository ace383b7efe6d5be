import { HEALTH_GROUPS, HttpError, instanceIdOf, sameRegistration, type PluginContext, type VigilRequest } from '../../core/plugin-api.js';
import { parseRegistration, type Instance } from '../../core/domain/index.js';
import { turnSlot } from '../../core/kits/runtime/index.js';

/** Registrations made over HTTP are marked so, whatever the body says (SBA does the same). */
const SOURCE = 'http-api';

export function instanceRoutes({ http, registry: instances, views, log, services }: PluginContext<unknown>): void {
  http.route('POST', '/instances', async (req, res) => {
    let held: Instance | undefined;
    const parsed = parseRegistration(await http.readJson(req), SOURCE, (healthUrl) => (held = instances.get(instanceIdOf(healthUrl)))?.registration);
    if (!parsed.ok) throw new HttpError(400, `invalid registration: ${parsed.problems.join('; ')}`);
    const created = (id: string) => http.sendJson(res, 201, { id }, { location: `${http.contextPath}/instances/${id}` });
    // A heartbeat that changes nothing is answered from this node's copy, as `register` would.
    if (held?.registered && held.registration && sameRegistration(held.registration, parsed.registration)) return created(held.id);
    // One that changes something is news to every plugin, and a thousand applications starting at
    // once must not hold up every other client: those take turns.
    await turnSlot();
    const { id, event } = await instances.register(parsed.registration);
    if (event?.type === 'REGISTERED') log.info(`registered ${id}`, { name: parsed.registration.name });
    created(id);
  });

  http.route('GET', '/instances', (req, res) => {
    const name = singleQuery(req, 'name');
    http.sendJson(res, 200, instances.list(name).map(views.instance));
  });

  // Written in pieces as the socket drains (20,000 instances with full histories are millions of
  // events); the events held when the request came are the list, later ones go to the streams.
  http.route('GET', '/instances/events', (_req, res) => http.sendJsonArray(res, 200, instances.events(), views.event));

  http.route('GET', '/instances/:id', (req, res) => {
    const instance = instances.get(req.params.id!);
    if (!instance?.registered) throw new HttpError(404, `instance ${req.params.id} not found`);
    http.sendJson(res, 200, views.instance(instance));
  });

  // As SBA: a deregistered instance still held answers (with `[]`); only an id never seen, or no
  // longer held, is 404. Without a plugin that reads health (no `monitor`) there are no groups.
  http.route('GET', '/instances/:id/health-groups', async (req, res) => {
    const id = req.params.id!;
    if (!instances.get(id)) throw new HttpError(404, `instance ${id} not found`);
    const groups = services.use(HEALTH_GROUPS);
    http.sendJson(res, 200, groups ? await groups.groupsOf(id) : []);
  });

  http.route('DELETE', '/instances/:id', async (req, res) => {
    const id = req.params.id!;
    // An id still held after deregistration answers 204 again, as SBA does; one never seen is 404.
    if (!(await instances.deregister(id))) throw new HttpError(404, `instance ${id} not found`);
    log.info(`deregistered ${id}`);
    res.writeHead(204).end();
  });
}

/** A query parameter that may appear at most once. */
export function singleQuery(req: VigilRequest, key: string): string | undefined {
  const value = req.query[key];
  if (Array.isArray(value)) throw new HttpError(400, `query parameter '${key}' must be given once`);
  return value;
}
