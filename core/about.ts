import { maskSecrets } from '../config/mask-secrets.js';
import type { DaemonAbout } from './domain/index.js';
import type { Prepared, PreparedPlugin } from './prepare.js';
import { sectionKeyOf } from './plugin-order.js';
import { vigilVersion } from './version.js';

/**
 * What `settings.about()` tells plugins: Vigil's version, the loaded plugins in `plugins:` order,
 * and the effective config (kernel keys with their defaults, each plugin's validated section)
 * with every secret masked. Built on each call: it is asked for rarely, and a plugin must never
 * hold on to a copy that could be changed.
 */
export function describeDaemon(prepared: Prepared): DaemonAbout {
  const listed = [...prepared.plugins].sort((a, b) => a.rank - b.rank);
  const config: Record<string, unknown> = { ...prepared.settings, plugins: listed.map((item) => item.resolved.entry) };
  for (const item of listed) {
    const key = sectionKeyOf(item.plugin);
    if (key !== null && item.config !== undefined) config[key] = item.config;
  }
  return {
    version: vigilVersion(),
    plugins: listed.map((item) => ({ name: item.plugin.name, version: pluginVersion(item), source: item.resolved.source, entry: item.resolved.entry })),
    config: maskSecrets(config) as Record<string, unknown>,
  };
}

/**
 * A built-in plugin ships with Vigil, so its version is Vigil's (whatever its object says); a
 * plugin from a path or a package has its own, or none.
 */
export function pluginVersion({ plugin, resolved }: Pick<PreparedPlugin, 'plugin' | 'resolved'>): string | null {
  return resolved.source === 'builtin' ? vigilVersion() : plugin.version ?? null;
}
