import type { ComponentChildren } from 'preact';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';
const isEmpty = (value: object): boolean => Object.keys(value).length === 0;

/** Any JSON value as nested key/value lists; long branches fold away below the first levels. */
export function JsonTree({ value, depth = 0 }: { value: unknown; depth?: number }): ComponentChildren {
  if (!isObject(value)) return <span class={`json-${value === null ? 'null' : typeof value}`}>{formatScalar(value)}</span>;
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  if (entries.length === 0) return <span class="muted">{Array.isArray(value) ? '[]' : '{}'}</span>;
  return (
    <dl class="json">
      {entries.map(([key, item]) => (
        <div key={key} class={isObject(item) && !isEmpty(item) ? 'json-entry nested' : 'json-entry'}>
          <dt>{key}</dt>
          <dd>
            {isObject(item) && depth >= 1 && Object.keys(item).length > 6
              ? (<details><summary class="muted">{Array.isArray(item) ? `${item.length} items` : `${Object.keys(item).length} keys`}</summary><JsonTree value={item} depth={depth + 1} /></details>)
              : <JsonTree value={item} depth={depth + 1} />}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function formatScalar(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
}
