import { useMemo } from 'preact/hooks';
import { VirtualTable } from '../../../components/virtual-table';
import { useActuator } from '../use-actuator';
import type { InstanceViewProps } from '../view-props';
import { SearchInput, ViewToolbar, contextsOf, plural, useSearch } from './shared';

interface PropsBean {
  readonly prefix?: string;
  readonly properties?: Record<string, unknown>;
  readonly inputs?: Record<string, unknown>;
}
interface ConfigpropsBody { readonly contexts?: Record<string, { readonly beans?: Record<string, PropsBean> }> }
interface Row { readonly key: string; readonly property: string; readonly value: string; readonly origin: string; readonly bean: string }

/**
 * Every `@ConfigurationProperties` value as one flat, searchable list: `prefix.path = value`, with
 * where it came from. Values are shown exactly as the instance gives them: it sanitises secrets
 * itself (`******`), and Vigil shows no more than it sent.
 */
export default function ConfigpropsView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<ConfigpropsBody>(instance.id, 'configprops');
  const rows = useMemo(() => {
    const list: Row[] = [];
    for (const [context, { beans }] of contextsOf(data)) {
      for (const [bean, { prefix, properties, inputs }] of Object.entries(beans ?? {})) {
        for (const [path, value] of flatten(properties ?? {}, '')) {
          const property = prefix ? `${prefix}.${path}` : path;
          list.push({ key: `${context}/${bean}/${path}`, property, value: shown(value), origin: originOf(inputs, path), bean });
        }
      }
    }
    return list.sort((a, b) => (a.property < b.property ? -1 : 1));
  }, [data]);
  const [query, setQuery, filtered] = useSearch(rows, (row) => `${row.property} ${row.value} ${row.bean}`);
  return (
    <div class="list-view">
      <ViewToolbar count={filtered.length === rows.length ? plural(rows.length, 'property', 'properties') : `${filtered.length} of ${plural(rows.length, 'property', 'properties')}`} loading={loading} onRefresh={reload}>
        <SearchInput value={query} onInput={setQuery} label="Search configuration properties" placeholder="Property, value or bean" />
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      <VirtualTable items={filtered} keyOf={(row) => row.key} label="Configuration properties" columns={[
        { label: 'Property', width: 'minmax(14rem, 2fr)', render: (row) => row.property, className: 'mono' },
        { label: 'Value', width: 'minmax(10rem, 2fr)', render: (row) => row.value, className: 'mono' },
        { label: 'Origin', width: 'minmax(8rem, 1.3fr)', render: (row) => row.origin, className: 'muted' },
      ]} />
    </div>
  );
}

/** `{a: {b: 1}, c: [x]}` → `a.b`, `c[0]`; empty objects and lists stay as one entry. */
function flatten(value: unknown, path: string): [string, unknown][] {
  if (Array.isArray(value)) {
    if (value.length === 0 || value.every((item) => item === null || typeof item !== 'object')) return path ? [[path, value]] : [];
    return value.flatMap((item, index) => flatten(item, `${path}[${index}]`));
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return path ? [[path, value]] : [];
    return entries.flatMap(([key, item]) => flatten(item, path ? `${path}.${key}` : key));
  }
  return [[path, value]];
}

function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? String(value);
}

/** Boot's `inputs` mirror `properties`, each leaf `{value, origin}`. */
function originOf(inputs: Record<string, unknown> | undefined, path: string): string {
  let node: unknown = inputs;
  for (const part of path.split(/\.|\[(\d+)\]/).filter((segment) => segment !== undefined && segment !== '')) {
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  const origin = node !== null && typeof node === 'object' ? (node as { origin?: unknown }).origin : undefined;
  return typeof origin === 'string' ? origin : '';
}
