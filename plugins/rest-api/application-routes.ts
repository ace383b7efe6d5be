import { HttpError, type PluginContext } from '../../core/plugin-api.js';
import { scopeOf } from '../../core/kits/access-scope/index.js';

export function applicationRoutes({ http, registry, views, bus, log }: PluginContext<unknown>): void {
  http.route('GET', '/applications', (req, res) => {
    const scope = scopeOf(req);
    const applications = registry.applications();
    return http.sendJsonArray(res, 200, scope.all ? applications : applications.filter((application) => scope.allows(application.name)), views.application);
  }, { action: 'applications.read' });

  http.route('GET', '/applications/:name', (req, res) => {
    const application = registry.application(req.params.name!);
    if (application.instances.length === 0) throw new HttpError(404, `application ${req.params.name} not found`);
    http.sendJson(res, 200, views.application(application));
  }, { action: 'applications.read', target: 'application' });

  http.route('DELETE', '/applications/:name', async (req, res) => {
    const members = registry.list(req.params.name!);
    if (members.length === 0) throw new HttpError(404, `application ${req.params.name} not found`);
    await Promise.all(members.map((instance) => registry.deregister(instance.id)));
    log.info(`deregistered application ${req.params.name}`, { instances: members.length });
    res.writeHead(204).end();
  }, { action: 'applications.deregister', target: 'application' });

  // SBA: a refresh event that discovery listens to; here monitoring re-checks every instance too.
  http.route('POST', '/applications', (_req, res) => {
    bus.emit('instances.refresh-requested', { reason: 'POST /applications' });
    res.writeHead(200, { 'content-length': '0' }).end();
  }, { action: 'applications.refresh' });
}
