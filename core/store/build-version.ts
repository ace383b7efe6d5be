/**
 * `buildVersion` as SBA derives it from a metadata or info map: `build.version` (nested), then
 * the flat key `build.version`, then `version`. A blank string becomes `UNKNOWN`.
 */
export function buildVersionOf(map: Readonly<Record<string, unknown>> | null | undefined): string | null {
  if (!map) return null;
  const build = map.build;
  const candidates = [
    build !== null && typeof build === 'object' ? (build as Record<string, unknown>).version : undefined,
    map['build.version'],
    map.version,
  ];
  const found = candidates.find((value): value is string => typeof value === 'string');
  if (found === undefined) return null;
  return found.trim() === '' ? 'UNKNOWN' : found;
}

const TOKEN_SPLIT = /[.\-+]/;

/** Orders versions token by token, numerically where both tokens are integers (SBA's BuildVersion). */
export function compareBuildVersions(a: string, b: string): number {
  const left = a.split(TOKEN_SPLIT);
  const right = b.split(TOKEN_SPLIT);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const l = left[i]!;
    const r = right[i]!;
    const bothNumbers = /^\d+$/.test(l) && /^\d+$/.test(r);
    const order = bothNumbers ? Number(l) - Number(r) : l < r ? -1 : l > r ? 1 : 0;
    if (order !== 0) return Math.sign(order);
  }
  return Math.sign(left.length - right.length);
}
