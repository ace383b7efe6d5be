// SBA reads a body as JSON when its type is compatible with application/json or is one of the
// actuator types (v1 bodies are converted to v3 there, so they count as readable too).
const JSON_TYPES = new Set([
  'application/json',
  'application/vnd.spring-boot.actuator.v1+json',
  'application/vnd.spring-boot.actuator.v2+json',
  'application/vnd.spring-boot.actuator.v3+json',
]);

/** Whether a Content-Type (parameters allowed) names a JSON body Vigil reads. */
export function isJsonType(contentType: string): boolean {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return JSON_TYPES.has(essence);
}

/**
 * How deeply an instance's JSON may nest. Health details and info are stored and later serialised
 * for every response and stream; `JSON.stringify` recurses, so a 30 KB body nested 5,000 deep
 * would make each of them fail. Real actuator bodies nest a handful of levels.
 */
export const MAX_JSON_DEPTH = 64;

/** Parses a JSON object body; undefined for an empty body, malformed JSON, a non-object or one nested too deeply. */
export function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return isPlainObject(value) && nestsWithin(value, MAX_JSON_DEPTH) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Iterative, so measuring the depth cannot overflow the stack itself. */
function nestsWithin(value: object, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return false;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return true;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
