import type { ServerResponse } from 'node:http';

/** Adds names to `Vary` without dropping what is there already (a route may vary on Accept). */
export function appendVary(res: ServerResponse, names: string): void {
  const current = res.getHeader('vary');
  const existing = (Array.isArray(current) ? current.join(',') : String(current ?? ''))
    .split(',').map((name) => name.trim()).filter(Boolean);
  const lower = new Set(existing.map((name) => name.toLowerCase()));
  const added = names.split(',').map((name) => name.trim()).filter((name) => name && !lower.has(name.toLowerCase()));
  const all = [...existing, ...added];
  if (all.length > 0) res.setHeader('vary', all.join(', '));
}
