const PREFIX = 'tags.';

/**
 * Tags from a map, as SBA reads them: a nested `tags` object wins; otherwise every key starting
 * with `tags.` (case-insensitive) with the prefix removed. Values become strings.
 */
export function tagsOf(map: Readonly<Record<string, unknown>> | null | undefined): Record<string, string> {
  if (!map) return {};
  const nested = map.tags;
  if (nested !== null && typeof nested === 'object' && !Array.isArray(nested)) {
    return Object.fromEntries(Object.entries(nested).map(([key, value]) => [key, stringify(value)]));
  }
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) {
    if (key.length > PREFIX.length && key.slice(0, PREFIX.length).toLowerCase() === PREFIX) {
      tags[key.slice(PREFIX.length)] = stringify(value);
    }
  }
  return tags;
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}
