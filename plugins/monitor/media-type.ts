// SBA reads a body as JSON when its type is compatible with application/json or is one of the
// actuator types (v1 bodies are converted to v3 there, so they count as readable too).
const JSON_TYPES = new Set([
  'application/json',
  'application/vnd.spring-boot.actuator.v1+json',
  'application/vnd.spring-boot.actuator.v2+json',
  'application/vnd.spring-boot.actuator.v3+json',
]);

/** The `Accept` sent when the caller gives none (reference §4.5). */
export const DEFAULT_ACCEPT = 'application/vnd.spring-boot.actuator.v3+json, application/vnd.spring-boot.actuator.v2+json, application/json';

/** Whether a Content-Type (parameters allowed) names a JSON body Vigil reads. */
export function isJsonType(contentType: string): boolean {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return JSON_TYPES.has(essence);
}

/** Parses a JSON object body; undefined for an empty body, malformed JSON or a non-object. */
export function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
