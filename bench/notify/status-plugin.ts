import { changeStatusCommand, definePlugin, HttpError } from '../../core/plugin-api.js';

/**
 * A plugin for the notify benchmark only, loaded by path: `POST /bench/instances?count=N`
 * registers N instances in process (in 40 applications, `&applications=M`: in M), and `POST /bench/status?status=A,B` records a status change
 * of every instance at once (alternating through the statuses given; `&limit=N`: the first N), as a
 * monitor would after a fleet-wide event. It answers once every change is recorded.
 */
export default definePlugin({
  name: 'bench-status',
  configKey: null,
  setup(ctx) {
    ctx.http.route('POST', '/bench/instances', async (req, res) => {
      const count = Number(req.query.count);
      if (!Number.isInteger(count) || count < 1) throw new HttpError(400, 'count must be a positive integer');
      const applications = req.query.applications === undefined ? 40 : Number(req.query.applications);
      if (!Number.isInteger(applications) || applications < 1) throw new HttpError(400, 'applications must be a positive integer');
      const ids = await Promise.all(Array.from({ length: count }, (_, n) => ctx.registry.register({
        name: `app-${n % applications}`,
        healthUrl: `http://10.1.${Math.floor(n / 250)}.${n % 250}:8080/actuator/health`,
        managementUrl: `http://10.1.${Math.floor(n / 250)}.${n % 250}:8080/actuator`,
        serviceUrl: `http://10.1.${Math.floor(n / 250)}.${n % 250}:8080/`,
        source: 'bench',
        metadata: { 'tags.env': 'bench', 'user.password': 'secret' },
      }).then((result) => result.id)));
      ctx.http.sendJson(res, 200, { registered: ids.length });
    });
    ctx.http.route('POST', '/bench/status', async (req, res) => {
      const statuses = String(req.query.status ?? '').split(',').filter(Boolean);
      if (statuses.length === 0) throw new HttpError(400, 'status is required');
      const limit = req.query.limit === undefined ? Infinity : Number(req.query.limit);
      const instances = ctx.registry.list().slice(0, limit);
      await Promise.all(instances.map((instance, n) => ctx.registry.apply(instance.id, changeStatusCommand({ status: statuses[n % statuses.length]!, details: {} }))));
      ctx.http.sendJson(res, 200, { changed: instances.length });
    });
  },
});
