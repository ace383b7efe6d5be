import type { LoadedSection } from '../../../core/plugin-api.js';
import type { RouteConfig } from './config.js';

/**
 * The channel targets the loaded plugins offer: each plugin that depends on `notify` is a
 * channel, its name its default target, and each key of its section's `targets` another.
 */
export function knownTargets(loaded: readonly LoadedSection[]): string[] {
  const targets: string[] = [];
  for (const plugin of loaded) {
    if (!plugin.dependencies.includes('notify')) continue;
    targets.push(plugin.name);
    const section = plugin.config as { targets?: unknown } | undefined;
    const named = section?.targets;
    if (typeof named === 'object' && named !== null) targets.push(...Object.keys(named).map((target) => `${plugin.name}:${target}`));
  }
  return targets;
}

/**
 * `notify.routes` against the loaded channels: a route naming an unknown target is a problem
 * (with the nearest known name); a last route with matchers is a warning, since notifications it
 * does not match go nowhere.
 */
export function checkRoutes(routes: readonly RouteConfig[] | undefined, loaded: readonly LoadedSection[], nearest: (word: string, known: readonly string[]) => string | undefined) {
  const problems: string[] = [];
  const warnings: string[] = [];
  if (!routes) return { problems, warnings };
  const known = knownTargets(loaded);
  for (const [index, route] of routes.entries()) {
    for (const [position, target] of route.to.entries()) {
      if (known.includes(target)) continue;
      const meant = nearest(target, known);
      const hint = meant ? `; did you mean "${meant}"?` : known.length > 0 ? ` (targets: ${known.join(', ')})` : ' (no notify-* channel is loaded)';
      problems.push(`notify.routes[${index}].to[${position}]: "${target}" is not a channel target${hint}`);
    }
  }
  const last = routes.at(-1);
  if (last && (last.applications || last.metadata || last.types || last.statuses)) {
    warnings.push(`notify.routes: the last route has matchers, so notifications no route matches go nowhere (counted as unrouted in GET /notifications); end with a route without matchers (- to: [notify-slack]) to catch the rest`);
  }
  if (routes.length === 0) warnings.push('notify.routes is empty: no notification is sent (leave the key out to send everything to every channel)');
  return { problems, warnings };
}
