import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** Vigil's own version, from its package.json (read once). */
export function vigilVersion(): string {
  if (cached === undefined) {
    const manifest = new URL('../../package.json', import.meta.url);
    cached = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  }
  return cached;
}
