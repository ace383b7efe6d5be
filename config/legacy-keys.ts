/** A key that moved: still read from where it was, with a line saying where it lives now. */
interface MovedKey {
  readonly from: readonly [string, string];
  readonly to: string;
  readonly why: string;
}

const MOVED: readonly MovedKey[] = [
  {
    from: ['proxy', 'ssrf-protection'],
    to: 'ssrf-protection',
    why: 'it now covers every call to an instance (health, info, detection), not only the proxy',
  },
];

/**
 * The config with moved keys put where they live now. Returns the deprecation lines to log and
 * the problems (a key set in both places), and never changes `config` itself.
 */
export function migrateMovedKeys(config: Record<string, unknown>): { config: Record<string, unknown>; deprecations: string[]; problems: string[] } {
  let result = config;
  const deprecations: string[] = [];
  const problems: string[] = [];
  for (const { from: [section, key], to, why } of MOVED) {
    const holder = result[section];
    if (holder === null || typeof holder !== 'object' || Array.isArray(holder) || !(key in holder)) continue;
    const { [key]: value, ...rest } = holder as Record<string, unknown>;
    if (result[to] !== undefined) {
      problems.push(`${section}.${key}: moved to the top-level key ${to}, which is also set; keep only ${to}`);
      continue;
    }
    result = { ...result, [section]: rest, [to]: value };
    deprecations.push(`${section}.${key} is deprecated: use the top-level key ${to} (${why})`);
  }
  return { config: result, deprecations, problems };
}
