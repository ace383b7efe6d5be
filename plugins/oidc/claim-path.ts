/**
 * A claim named by a path, as Keycloak's mappers write them: a dot descends into an object
 * (`realm_access.roles`), and `\.` is a literal dot in a name (`https://example\.com/groups`).
 * Undefined for an empty path or an empty segment.
 */
export function parseClaimPath(path: string): string[] | undefined {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i += 1) {
    const char = path[i]!;
    if (char === '\\' && path[i + 1] === '.') {
      current += '.';
      i += 1;
    } else if (char === '.') {
      segments.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  segments.push(current);
  return segments.some((segment) => segment === '') ? undefined : segments;
}

/** The value at `path` in a claims object, or undefined when any step is missing or not an object. */
export function claimAt(claims: unknown, path: readonly string[]): unknown {
  let value = claims;
  for (const segment of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** A claim as a string (`preferred_username`), or undefined when it is absent, empty or not text. */
export function stringClaim(claims: unknown, path: readonly string[]): string | undefined {
  const value = claimAt(claims, path);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * A claim as a list of strings: an array's strings, or a single string as a list of one (IdPs
 * send both). Undefined when the claim is absent, so the caller can look elsewhere for it.
 */
export function listClaim(claims: unknown, path: readonly string[]): string[] | undefined {
  const value = claimAt(claims, path);
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (!Array.isArray(value)) return undefined;
  return [...new Set(value.filter((item): item is string => typeof item === 'string' && item !== ''))];
}
