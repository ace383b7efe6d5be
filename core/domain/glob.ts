/**
 * Globs on application names, as maintenance windows, expectations and routes take them: `*`
 * matches any run of characters (also none), `?` exactly one, everything else itself; case
 * counts, as in application names and Alertmanager's labels.
 */

/**
 * The regular expression a glob stands for, unanchored, in the syntax JavaScript and RE2 share
 * (Alertmanager's matchers anchor it themselves): every other character is escaped.
 */
export function globRegExpSource(glob: string): string {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += /[\\^$.|+()[\]{}]/.test(char) ? `\\${char}` : char;
  }
  return source;
}

/** A test of a name against several globs: true when any matches. No glob matches nothing. */
export function globMatcher(globs: readonly string[]): (name: string) => boolean {
  if (globs.length === 0) return () => false;
  const regex = new RegExp(`^(?:${globs.map(globRegExpSource).join('|')})$`, 'su');
  return (name) => regex.test(name);
}
