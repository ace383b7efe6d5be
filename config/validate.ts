import { messageOf } from '../core/errors.js';

/** The part of a yup schema Vigil relies on; a plugin's own copy of yup satisfies it too. */
export interface ConfigSchema<T = unknown> {
  validate(value: unknown, options?: { abortEarly?: boolean; strict?: boolean; stripUnknown?: boolean }): Promise<T>;
}

interface YupLikeError {
  readonly path?: string;
  readonly message: string;
  readonly inner?: readonly YupLikeError[];
}

/**
 * Validates one section with its schema, collecting every problem as `key.path: message`, so the
 * user sees all of them at once and each names the key to fix.
 */
export async function validateSection<T>(
  schema: ConfigSchema<T>,
  value: unknown,
  section: string,
): Promise<{ ok: true; value: T } | { ok: false; problems: string[] }> {
  try {
    // stripUnknown: false, so a schema's noUnknown() reports a typo instead of quietly dropping it.
    return { ok: true, value: await schema.validate(value, { abortEarly: false, stripUnknown: false }) };
  } catch (error) {
    const root = error as YupLikeError;
    const leaves = root.inner && root.inner.length > 0 ? root.inner : [root];
    const problems = leaves.map((leaf) => {
      const path = joinPath(section, leaf.path);
      const message = messageOf(leaf).replace(/^(this|\S+)\s/, (word) => (word.trim() === (leaf.path ?? 'this') ? '' : word));
      return `${path}: ${message}`;
    });
    return { ok: false, problems: [...new Set(problems)] };
  }
}

/** `monitor` + `["status-interval"]` → `monitor.status-interval`. */
export function joinPath(section: string, path: string | undefined): string {
  const clean = (path ?? '').replace(/\["([^"]+)"\]/g, '.$1').replace(/^\./, '');
  if (!section) return clean || '(root)';
  return clean ? `${section}.${clean}` : section;
}
