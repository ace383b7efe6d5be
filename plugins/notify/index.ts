import { ALLOWED_HOSTS, definePlugin, nearestName, type ConfigSchema, type PluginContext } from '../../core/plugin-api.js';
import { scopeOf } from '../../core/kits/access-scope/index.js';
import { notifySchema, type NotifyConfig } from './config-schema.js';
import { notifyApi } from './api-description.js';
import { contributeNotifyMetrics } from './metrics.js';
import { maintenanceApi } from './maintenance/api-description.js';
import { maintenanceRoutes } from './maintenance/routes.js';
import { checkRoutes } from './routing/check.js';
import { filterRoutes } from './routes.js';
import { NotifyService } from './service.js';

export type { NotifyConfig } from './config-schema.js';

function hostsOf(url: string): string[] {
  try {
    return url ? [new URL(url).hostname] : [];
  } catch {
    return [];
  }
}

/**
 * `notify`: the notification pipeline every `notify-*` channel plugs into (issue 16). It takes
 * each recorded event from `EVENT_OUTBOX`, decides whether and when to tell whom (triggers,
 * `ignore-changes`, hold, filters, storm control, grouping, reminders) and delivers through each
 * channel's queue with timeouts, retries and pacing. It serves `GET /notifications`, SBA's
 * filter API `/notifications/filters` and the maintenance API `/maintenance` (issue 32), and
 * judges fleet expectations.
 */
export default definePlugin<NotifyConfig>({
  name: 'notify',
  version: '0.1.0',
  configSchema: notifySchema as unknown as ConfigSchema<NotifyConfig>,
  crossCheck: (config, loaded) => checkRoutes(config.routes, loaded, nearestName),
  create(ctx: PluginContext<NotifyConfig>) {
    const service = new NotifyService(ctx);
    ctx.http.route('GET', '/notifications', async (req, res) => ctx.http.sendJson(res, 200, await service.status(scopeOf(req))), { action: 'notifications.read' });
    if (ctx.config['filters-api']) filterRoutes(ctx.http, service.filters);
    maintenanceRoutes(ctx.http, service.maintenance, () => service.maintenanceChanged(), (id) => ctx.registry.get(id)?.registration?.name);
    maintenanceApi(ctx.services);
    notifyApi(ctx.services, ctx.config['filters-api']);
    contributeNotifyMetrics(ctx.services, service.stats);
    // The dashboard address messages link to is one the server must answer to (`server.allowed-hosts`).
    ctx.services.contribute(ALLOWED_HOSTS, { hosts: () => hostsOf(ctx.config['base-url']) });
    return { start: () => service.start(), stop: () => service.stop(), reload: (config: NotifyConfig) => service.reload(config) };
  },
});
