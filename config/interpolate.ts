const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of a parsed config, from `env`.
 * `$${` stays a literal `${`. An unset variable without a default is a problem naming it and
 * the key where it was used; the value is then left as written, and its key added to `unset`
 * (so a check of that value need not report it again).
 */
export function interpolate(value: unknown, env: NodeJS.ProcessEnv, problems: string[], path = '', unset: string[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(REFERENCE, (whole, name: string | undefined, fallback: string | undefined) => {
      if (name === undefined) return '${';
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      problems.push(`${path || '(root)'}: environment variable ${name} is not set (use \${${name}:-default} for a default)`);
      unset.push(path);
      return whole;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, env, problems, `${path}[${index}]`, unset));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolate(item, env, problems, path ? `${path}.${key}` : key, unset)]),
    );
  }
  return value;
}
