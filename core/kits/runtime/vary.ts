import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Adds names to `Vary` without dropping what is there already (a route may vary on Accept). */
export function appendVary(res: ServerResponse, names: string): void {
  const merged = mergeVary(res.getHeader('vary'), names);
  if (merged) res.setHeader('vary', merged);
}

/**
 * Makes sure `Vary` names `names` when the response head goes out, whatever a route does to the
 * header meanwhile: `setHeader('vary', ...)` replaces it, and `writeHead(status, headers)` with
 * its own `Vary` (sirv does that) wins over everything set before. A shared cache that keys on
 * fewer headers than the answer depends on hands one origin's answer to another.
 */
export function varyOnWrite(res: ServerResponse, names: string): void {
  appendVary(res, names);
  const writeHead = res.writeHead;
  // Node's implicit head (a write or end without writeHead) goes through `this.writeHead` too.
  res.writeHead = function writeHeadVarying(this: ServerResponse, status: number, ...rest: unknown[]): ServerResponse {
    const headers = rest.at(-1);
    if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
      const object = headers as OutgoingHttpHeaders;
      const key = Object.keys(object).find((name) => name.toLowerCase() === 'vary');
      if (key !== undefined) {
        object[key] = mergeVary(mergeVary(this.getHeader('vary'), String(object[key] ?? '')), names);
      }
    }
    appendVary(this, names);
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

function mergeVary(current: number | string | readonly string[] | undefined, names: string): string {
  const existing = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',').map((name) => name.trim()).filter(Boolean);
  const lower = new Set(existing.map((name) => name.toLowerCase()));
  const added = names.split(',').map((name) => name.trim()).filter((name) => {
    if (!name || lower.has(name.toLowerCase())) return false;
    lower.add(name.toLowerCase());
    return true;
  });
  return [...existing, ...added].join(', ');
}
