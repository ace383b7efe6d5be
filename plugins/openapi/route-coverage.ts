import { type HttpMethod } from '../../core/plugin-api.js';
import { openApiPath, type OpenApiObject } from '../../core/kits/services/index.js';

/**
 * Routes of the router's table that the document does not describe, and operations of the
 * document no route serves, each as `METHOD /path` (OpenAPI form, below the context path).
 */
export function routeCoverage(document: OpenApiObject, routes: readonly { method: HttpMethod; path: string }[], contextPath: string): { undocumented: string[]; unrouted: string[] } {
  const below = (path: string) => (contextPath && path.startsWith(contextPath) ? path.slice(contextPath.length) || '/' : path);
  const routed = new Set(routes.map((route) => `${route.method} ${openApiPath(below(route.path))}`));
  const documented = new Set<string>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const key of Object.keys(item)) if (key !== 'parameters' && key !== 'summary' && key !== 'description') documented.add(`${key.toUpperCase()} ${path}`);
  }
  return {
    undocumented: [...routed].filter((entry) => !documented.has(entry)).sort(),
    unrouted: [...documented].filter((entry) => !routed.has(entry)).sort(),
  };
}
