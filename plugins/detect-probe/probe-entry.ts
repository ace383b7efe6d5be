/** One `probed-endpoints` entry: endpoint `id` probed at `path` under the management URL. */
export interface ProbeEntry {
  readonly id: string;
  readonly path: string;
}

// An id has no colon, slash or space; a path is anything non-blank after the first colon.
const ENTRY = /^([^\s:/]+)(?::(\S+))?$/;

/** `threaddump:dump` → `{id: threaddump, path: dump}`, `health` → `{id: health, path: health}`; undefined when malformed. */
export function parseProbeEntry(entry: string): ProbeEntry | undefined {
  const match = ENTRY.exec(entry);
  if (!match) return undefined;
  const id = match[1]!;
  return { id, path: (match[2] ?? id).replace(/^\/+/, '') || id };
}
