import { maskSecrets } from '../config/mask-secrets.js';
import type { DaemonAbout } from './plugin-api.js';
import type { Prepared } from './prepare.js';
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
    plugins: listed.map(({ plugin, resolved }) => ({ name: plugin.name, version: plugin.version ?? null, source: resolved.source, entry: resolved.entry })),
    config: maskSecrets(config) as Record<string, unknown>,
  };
}
