import { useMemo, useState } from 'preact/hooks';
import { VirtualTable } from '../../../components/virtual-table';
import { useActuator } from '../use-actuator';
import type { InstanceViewProps } from '../view-props';
import { DetailPanel, SearchInput, ViewToolbar, contextsOf, plural, simpleName, useSearch } from './shared';

interface Conditions {
  readonly methods?: readonly string[];
  readonly patterns?: readonly string[];
  readonly consumes?: readonly { mediaType: string; negated?: boolean }[];
  readonly produces?: readonly { mediaType: string; negated?: boolean }[];
  readonly headers?: readonly { name: string; value?: string | null; negated?: boolean }[];
  readonly params?: readonly { name: string; value?: string | null; negated?: boolean }[];
}
interface Handler {
  readonly handler?: string;
  readonly predicate?: string;
  readonly details?: { readonly handlerMethod?: { className?: string; name?: string }; readonly requestMappingConditions?: Conditions; readonly handlerFunction?: { className?: string } } | null;
}
interface Mappings {
  readonly dispatcherServlets?: Record<string, readonly Handler[]>;
  readonly dispatcherHandlers?: Record<string, readonly Handler[]>;
  readonly servletFilters?: readonly { name: string; className?: string; urlPatternMappings?: readonly string[]; servletNameMappings?: readonly string[] }[];
  readonly servlets?: readonly { name: string; className?: string; mappings?: readonly string[] }[];
}
interface Row {
  readonly key: string;
  readonly kind: 'Handler' | 'Filter' | 'Servlet';
  readonly methods: string;
  readonly patterns: string;
  readonly target: string;
  readonly handler?: Handler;
  readonly detail: Record<string, string>;
}

/** Request mappings (Spring MVC's dispatcher servlets or WebFlux's dispatcher handlers), servlet filters and servlets, searchable. */
export default function MappingsView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<{ contexts?: Record<string, { mappings?: Mappings }> }>(instance.id, 'mappings');
  const rows = useMemo(() => {
    const list: Row[] = [];
    for (const [context, { mappings }] of contextsOf(data)) {
      const handlers = { ...mappings?.dispatcherServlets, ...mappings?.dispatcherHandlers };
      for (const [dispatcher, entries] of Object.entries(handlers)) {
        entries.forEach((entry, index) => {
          const conditions = entry.details?.requestMappingConditions;
          list.push({
            key: `${context}/${dispatcher}/${index}`, kind: 'Handler', handler: entry,
            methods: conditions?.methods?.join(', ') || (conditions ? 'any' : ''),
            patterns: conditions?.patterns?.join(', ') ?? entry.predicate ?? '',
            target: entry.handler ?? '',
            detail: { Dispatcher: dispatcher, Predicate: entry.predicate ?? '', Handler: entry.handler ?? '', ...conditionDetail(conditions) },
          });
        });
      }
      for (const filter of mappings?.servletFilters ?? []) {
        const patterns = [...(filter.urlPatternMappings ?? []), ...(filter.servletNameMappings ?? []).map((name) => `servlet ${name}`)].join(', ');
        list.push({ key: `${context}/filter/${filter.name}`, kind: 'Filter', methods: '', patterns, target: filter.className ?? filter.name, detail: { Name: filter.name, Class: filter.className ?? '' } });
      }
      for (const servlet of mappings?.servlets ?? []) {
        list.push({ key: `${context}/servlet/${servlet.name}`, kind: 'Servlet', methods: '', patterns: (servlet.mappings ?? []).join(', '), target: servlet.className ?? servlet.name, detail: { Name: servlet.name, Class: servlet.className ?? '' } });
      }
    }
    return list;
  }, [data]);
  const [query, setQuery, shown] = useSearch(rows, (row) => `${row.kind} ${row.methods} ${row.patterns} ${row.target}`);
  const [selected, setSelected] = useState<Row | null>(null);
  return (
    <div class="list-view">
      <ViewToolbar count={shown.length === rows.length ? plural(rows.length, 'mapping') : `${shown.length} of ${plural(rows.length, 'mapping')}`} loading={loading} onRefresh={reload}>
        <SearchInput value={query} onInput={setQuery} label="Search mappings" placeholder="Path, method or handler" />
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      <div class="split">
        <VirtualTable items={shown} keyOf={(row) => row.key} label="Mappings" selected={selected?.key ?? null} onSelect={setSelected} columns={[
          { label: 'Kind', width: '5.5rem', render: (row) => row.kind, className: 'muted' },
          { label: 'Methods', width: '7rem', render: (row) => row.methods, className: 'mono' },
          { label: 'Path', width: 'minmax(12rem, 1.6fr)', render: (row) => row.patterns, className: 'mono' },
          { label: 'Handler', width: 'minmax(12rem, 2fr)', render: (row) => shortHandler(row.target), className: 'mono muted' },
        ]} />
        {selected && (
          <DetailPanel title={selected.patterns || selected.kind} onClose={() => setSelected(null)}>
            <dl class="pairs">
              {Object.entries(selected.detail).filter(([, value]) => value !== '').map(([key, value]) => [<dt key={`k-${key}`}>{key}</dt>, <dd key={`v-${key}`} class="mono">{value}</dd>])}
            </dl>
          </DetailPanel>
        )}
      </div>
    </div>
  );
}

/** `com.example.api.InvoiceController#list(Pageable)` → `InvoiceController#list(Pageable)`; the full name is in the details. */
function shortHandler(handler: string): string {
  const hash = handler.indexOf('#');
  return hash < 0 ? simpleName(handler.split(' ')[0]!) + handler.slice(handler.split(' ')[0]!.length) : `${simpleName(handler.slice(0, hash))}${handler.slice(hash)}`;
}

function conditionDetail(conditions: Conditions | undefined): Record<string, string> {
  if (!conditions) return {};
  const media = (list?: readonly { mediaType: string; negated?: boolean }[]) => (list ?? []).map((item) => `${item.negated ? '!' : ''}${item.mediaType}`).join(', ');
  const pairs = (list?: readonly { name: string; value?: string | null; negated?: boolean }[]) =>
    (list ?? []).map((item) => `${item.negated ? '!' : ''}${item.name}${item.value ? `=${item.value}` : ''}`).join(', ');
  return { Methods: (conditions.methods ?? []).join(', '), Consumes: media(conditions.consumes), Produces: media(conditions.produces), Headers: pairs(conditions.headers), Params: pairs(conditions.params) };
}
