import { HttpError, definePlugin, vigilVersion } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE } from '../../core/kits/services/index.js';
import { buildDocument } from './document.js';
import { KERNEL_ROUTES } from './kernel-routes.js';
import { routeCoverage } from './route-coverage.js';

/**
 * `openapi`: `GET /openapi.json`, the OpenAPI 3.1 document of every loaded plugin's routes,
 * merged from what each contributes under `API_DESCRIPTION` (`vigil/services`).
 * Built once at start, when every route and contribution is in; a route nobody describes is
 * named in a warning then (Vigil's own tests hold the document equal to the router's table).
 */
export default definePlugin({
  name: 'openapi',
  version: '1.0.0',
  configKey: null,
  create(ctx) {
    let text: string | undefined;
    ctx.services.contribute(API_DESCRIPTION, {
      paths: {
        '/openapi.json': {
          get: {
            tags: ['ops'],
            summary: 'This document',
            operationId: 'getOpenApiDocument',
            responses: {
              200: { description: 'The OpenAPI 3.1 document of the loaded plugins', content: { 'application/json': { schema: { type: 'object' } } } },
              default: ERROR_RESPONSE,
            },
          },
        },
      },
    });
    ctx.http.route('GET', '/openapi.json', (_req, res) => {
      // Between listen and start the routes are all known, but the document is not built yet.
      if (text === undefined) throw new HttpError(503, 'the API document is not ready yet', { 'retry-after': '1' });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    }, { action: 'api.read' });
    return {
      start() {
        const { document, problems } = buildDocument({ version: vigilVersion(), contextPath: ctx.http.contextPath, contributions: [KERNEL_ROUTES, ...ctx.services.collect(API_DESCRIPTION)] });
        if (problems.length > 0) throw new Error(`the API description is inconsistent: ${problems.join('; ')}`);
        const { undocumented, unrouted } = routeCoverage(document, ctx.http.routes(), ctx.http.contextPath);
        if (undocumented.length > 0) ctx.log.warn(`routes missing from /openapi.json (their plugin contributes no API_DESCRIPTION for them): ${undocumented.join(', ')}`);
        if (unrouted.length > 0) ctx.log.warn(`operations in /openapi.json that no route serves: ${unrouted.join(', ')}`);
        text = JSON.stringify(document);
      },
    };
  },
});
