import { useMemo, useState } from 'preact/hooks';
import { VirtualTable } from '../../../components/virtual-table';
import { useActuator } from '../use-actuator';
import type { InstanceViewProps } from '../view-props';
import { DetailPanel, SearchInput, ViewToolbar, contextsOf, plural, simpleName, useSearch } from './shared';

interface Bean {
  readonly aliases?: readonly string[];
  readonly scope?: string;
  readonly type?: string;
  readonly resource?: string | null;
  readonly dependencies?: readonly string[];
}
interface BeansBody { readonly contexts?: Record<string, { readonly beans?: Record<string, Bean> }> }
interface Row extends Bean { readonly name: string; readonly context: string; readonly key: string }

/** Every bean of every context: searchable by name, type, alias and resource; its dependencies both ways on a click. */
export default function BeansView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<BeansBody>(instance.id, 'beans');
  const rows = useMemo(() => contextsOf(data).flatMap(([context, { beans }]) =>
    Object.entries(beans ?? {}).map(([name, bean]) => ({ ...bean, name, context, key: `${context}/${name}` }))), [data]);
  const dependents = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const row of rows) for (const dependency of row.dependencies ?? []) map.set(dependency, [...(map.get(dependency) ?? []), row.name]);
    return map;
  }, [rows]);
  const [query, setQuery, shown] = useSearch(rows, (row) => `${row.name} ${row.type ?? ''} ${(row.aliases ?? []).join(' ')} ${row.resource ?? ''}`);
  const [selected, setSelected] = useState<Row | null>(null);
  const pick = (name: string) => setSelected(rows.find((row) => row.name === name) ?? null);
  return (
    <div class="list-view">
      <ViewToolbar count={shown.length === rows.length ? plural(rows.length, 'bean') : `${shown.length} of ${plural(rows.length, 'bean')}`} loading={loading} onRefresh={reload}>
        <SearchInput value={query} onInput={setQuery} label="Search beans" placeholder="Name, type, alias or resource" />
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      <div class="split">
        <VirtualTable items={shown} keyOf={(row) => row.key} label="Beans" selected={selected?.key ?? null} onSelect={setSelected} columns={[
          { label: 'Bean', width: 'minmax(12rem, 2fr)', render: (row) => row.name, className: 'mono' },
          { label: 'Type', width: 'minmax(10rem, 2fr)', render: (row) => simpleName(row.type ?? '') },
          { label: 'Scope', width: '7rem', render: (row) => row.scope ?? '' },
          { label: 'Dependencies', width: '8rem', render: (row) => String(row.dependencies?.length ?? 0), className: 'num' },
        ]} />
        {selected && (
          <DetailPanel title={selected.name} onClose={() => setSelected(null)}>
            <dl class="pairs">
              <dt>Type</dt><dd class="mono">{selected.type ?? '–'}</dd>
              <dt>Scope</dt><dd>{selected.scope ?? '–'}</dd>
              <dt>Context</dt><dd>{selected.context}</dd>
              <dt>Aliases</dt><dd>{(selected.aliases ?? []).length > 0 ? selected.aliases!.join(', ') : '–'}</dd>
              <dt>Resource</dt><dd class="mono">{selected.resource ?? '–'}</dd>
            </dl>
            <BeanLinks title="Depends on" names={selected.dependencies ?? []} onPick={pick} />
            <BeanLinks title="Used by" names={dependents.get(selected.name) ?? []} onPick={pick} />
          </DetailPanel>
        )}
      </div>
    </div>
  );
}

function BeanLinks({ title, names, onPick }: { title: string; names: readonly string[]; onPick: (name: string) => void }) {
  return (
    <section>
      <h3>{title} ({names.length})</h3>
      {names.length === 0 ? <p class="muted">None.</p> : (
        <ul class="plain-list">
          {names.map((name) => <li key={name}><button type="button" class="link mono" onClick={() => onPick(name)}>{name}</button></li>)}
        </ul>
      )}
    </section>
  );
}
