import { messageOf } from '../core/errors.js';
import { descriptionAt, describeSchema } from './schema-description.js';
import { nearestName } from './suggest.js';

/** The part of a yup schema Vigil relies on; a plugin's own copy of yup satisfies it too. */
export interface ConfigSchema<T = unknown> {
  validate(value: unknown, options?: { abortEarly?: boolean; strict?: boolean; stripUnknown?: boolean }): Promise<T>;
}

interface YupLikeError {
  readonly path?: string;
  readonly message: string;
  readonly type?: string;
  readonly value?: unknown;
  readonly params?: { readonly [key: string]: unknown };
  readonly inner?: readonly YupLikeError[];
}

/**
 * Validates one section with its schema, collecting every problem as `key.path: message`, so the
 * user sees all of them at once and each names the key to fix. An unknown key or an enum value
 * that is a typo of a known one says which (`(did you mean "status-interval"?)`).
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
      const message = messageOf(leaf).replace(/^(this|\S+)\s/, (word) => (word.trim() === (leaf.path || 'this') ? '' : word));
      return `${path}: ${message}${suggestionFor(leaf, schema, value)}`;
    });
    return { ok: false, problems: [...new Set(problems)] };
  }
}

/** ` (did you mean "x"?)` for a typo of a known key or allowed value, else nothing. */
function suggestionFor(leaf: YupLikeError, schema: unknown, value: unknown): string {
  if (leaf.type === 'oneOf') {
    const allowed = (leaf.params?.resolved as unknown[] | undefined)?.filter((item): item is string => typeof item === 'string') ?? [];
    const meant = typeof leaf.value === 'string' ? nearestName(leaf.value, allowed) : undefined;
    return meant === undefined ? '' : ` (did you mean "${meant}"?)`;
  }
  if (leaf.type !== 'exact' && leaf.type !== 'noUnknown') return '';
  const listed = leaf.params?.properties ?? leaf.params?.unknown;
  const known = Object.keys(descriptionAt(describeSchema(schema, value), leaf.path)?.fields ?? {});
  if (typeof listed !== 'string' || known.length === 0) return '';
  const unknown = listed.split(', ');
  const meant = unknown.map((name) => [name, nearestName(name, known)] as const).filter((pair): pair is readonly [string, string] => pair[1] !== undefined);
  if (meant.length === 0) return '';
  if (unknown.length === 1) return ` (did you mean "${meant[0]![1]}"?)`;
  return ` (did you mean ${meant.map(([name, known]) => `"${known}" for "${name}"`).join(', ')}?)`;
}

/** `monitor` + `["status-interval"]` → `monitor.status-interval`. */
export function joinPath(section: string, path: string | undefined): string {
  const clean = (path ?? '').replace(/\["([^"]+)"\]/g, '.$1').replace(/^\./, '');
  if (!section) return clean || '(root)';
  return clean ? `${section}.${clean}` : section;
}
