/**
 * The serialised origin (`https://ops.example.com`, `http://localhost:3000`) of a configured or
 * received origin, or undefined when it is not one. Browsers send origins already serialised;
 * normalising both sides makes `HTTPS://Ops.Example.com:443/` in the config match too. A path,
 * query or credentials make it invalid, and so does the opaque origin `null` (sandboxed frames,
 * `file:` pages), which must never be trusted.
 */
export function normaliseOrigin(value: string): string | undefined {
  const trimmed = value.trim().replace(/\/$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.origin === 'null' || url.username || url.password || url.search || url.hash) return undefined;
  if (url.pathname !== '/' && url.pathname !== '') return undefined;
  return url.origin;
}
