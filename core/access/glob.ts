/**
 * An application-name glob of `access.grants[].applications`: `*` any run of characters, `?` one
 * character, everything else literal; the whole name must match (case-sensitive, as names are).
 */
export function globMatcher(globs: readonly string[]): (name: string) => boolean {
  if (globs.includes('*')) return () => true;
  const exact = new Set(globs.filter((glob) => !/[*?]/.test(glob)));
  const patterns = globs.filter((glob) => /[*?]/.test(glob)).map(globRegex);
  return (name) => exact.has(name) || patterns.some((pattern) => pattern.test(name));
}

function globRegex(glob: string): RegExp {
  const body = glob.split('').map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 's');
}
