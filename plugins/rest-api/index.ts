import { definePlugin } from '../../core/plugin-api.js';
import { applicationRoutes } from './application-routes.js';
import { instanceRoutes } from './instance-routes.js';
import { restApi } from './api-description.js';

/**
 * `rest-api`: the registry part of the HTTP API (reference §0): `/instances`, `/applications`
 * and the JSON event list. Streams, the proxy and monitoring are other plugins.
 */
export default definePlugin({
  name: 'rest-api',
  configKey: null,
  create(ctx) {
    instanceRoutes(ctx);
    applicationRoutes(ctx);
    restApi(ctx.services);
  },
});
