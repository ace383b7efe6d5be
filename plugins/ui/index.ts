import { definePlugin, type VigilPlugin } from '../../core/plugin-api.js';
import { ASSET_PREFIX, DEFAULT_APP_FOLDER, checkAppFolder } from './app-folder.js';
import { sessionRoute } from './session-route.js';
import { staticRoutes } from './static-routes.js';
import { uiApi } from './api-description.js';

/**
 * The `ui` plugin for a given app folder; tests point it at a folder of their own. The folder is
 * checked at setup, so a missing build fails start-up with the fix named.
 */
export function createUiPlugin(folder: string = DEFAULT_APP_FOLDER): VigilPlugin<unknown> {
  return definePlugin({
    name: 'ui',
    version: '1.0.0',
    configKey: null,
    // The app reads the lists from rest-api and follows sse's event stream; without them it shows nothing.
    dependencies: ['rest-api', 'sse'],
    create(ctx) {
      checkAppFolder(folder);
      staticRoutes(ctx.http, folder);
      uiApi(ctx.services);
      // The About page: versions, plugins and the effective config, secrets masked by the kernel.
      // Under the dashboard's prefix, so it is clearly the dashboard's and clashes with no API path.
      ctx.http.route('GET', `/${ASSET_PREFIX}/about`, (_req, res) => ctx.http.sendJson(res, 200, ctx.settings.about(), { 'cache-control': 'no-store' }), { action: 'dashboard.read' });
      // The header's "signed in as" and its sign-out button.
      sessionRoute(ctx.http);
    },
  });
}

/**
 * `ui`: the dashboard, a browser app served by Vigil itself (sirv, no CDN) at the context root.
 * It loads the lists once and then follows `/instances/events`, so it sends no request per instance.
 */
export default createUiPlugin();
