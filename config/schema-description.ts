/**
 * The parts of a yup schema's `describe()` that the config check reads to explain a problem: the
 * fields of an object, the element of an array, defaults and meta. A plugin's own copy of yup
 * describes itself the same way; a schema that cannot describe itself gives nothing.
 */
export interface FieldDescription {
  readonly type?: string;
  readonly default?: unknown;
  readonly meta?: { readonly [key: string]: unknown };
  readonly fields?: { readonly [key: string]: FieldDescription };
  readonly innerType?: FieldDescription;
}

interface Describable {
  describe(options?: { value?: unknown }): FieldDescription;
}

export function describeSchema(schema: unknown, value: unknown): FieldDescription | undefined {
  if (!schema || typeof (schema as Partial<Describable>).describe !== 'function') return undefined;
  try {
    // With the value, lazy parts (maps keyed by the user's names) describe what they hold.
    return (schema as Describable).describe({ value });
  } catch {
    return undefined;
  }
}

/** `a.b`, `users[3]`, `["service-map"].shop`: the names and indexes of a yup path, in order. */
export function pathSegments(path: string | undefined): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const match of (path ?? '').matchAll(/\["([^"]+)"\]|\[(\d+)\]|([^.[\]]+)/g)) {
    segments.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? match[3])!);
  }
  return segments;
}

/** The description at `path` inside `root`, following object fields and array elements. */
export function descriptionAt(root: FieldDescription | undefined, path: string | undefined): FieldDescription | undefined {
  let node = root;
  for (const segment of pathSegments(path)) {
    if (!node) return undefined;
    node = typeof segment === 'number' ? node.innerType : node.fields?.[segment];
  }
  return node;
}
