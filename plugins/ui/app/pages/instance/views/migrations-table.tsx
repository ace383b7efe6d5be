import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { toggled } from '../../../list-toggle';
import { VirtualTable, type Column } from '../../../components/virtual-table';
import { SearchInput, ViewToolbar, plural, useSearch } from './shared';

/** One database migration tool's beans (Flyway's or Liquibase's), each with its list. */
export interface MigrationBean<T> {
  readonly context: string;
  readonly bean: string;
  readonly items: readonly T[];
}

interface Props<T> {
  readonly beans: readonly MigrationBean<T>[];
  readonly noun: string;
  readonly columns: readonly Column<T>[];
  readonly keyOf: (item: T) => string;
  readonly textOf: (item: T) => string;
  readonly stateOf: (item: T) => string;
  readonly loading: boolean;
  readonly error: string | null;
  readonly onRefresh: () => void;
  readonly children?: ComponentChildren;
}

/** The shared shape of the Flyway and Liquibase views: per bean, a searchable list with a tally by state. */
export function MigrationsTable<T>({ beans, noun, columns, keyOf, textOf, stateOf, loading, error, onRefresh }: Props<T>) {
  const all = useMemo(() => beans.flatMap((bean) => bean.items), [beans]);
  const states = useMemo(() => {
    const counts = new Map<string, number>();
    for (const item of all) counts.set(stateOf(item), (counts.get(stateOf(item)) ?? 0) + 1);
    return [...counts];
  }, [all]);
  const [picked, setPicked] = useState<readonly string[]>([]);
  return (
    <div class="list-view">
      {beans.length === 0 && !loading && !error && <p class="muted">No {noun}s.</p>}
      {error && <p class="error">{error}</p>}
      {beans.map((bean) => (
        <BeanTable key={`${bean.context}/${bean.bean}`} bean={bean} title={beans.length > 1 ? `${bean.bean} (${bean.context})` : undefined} noun={noun} columns={columns}
          keyOf={keyOf} textOf={textOf} stateOf={stateOf} loading={loading} onRefresh={onRefresh} picked={picked}
          chips={(
            <div class="chips" role="group" aria-label="State">
              {states.map(([state, count]) => (
                <button type="button" key={state} class={`chip state-${state.toLowerCase()}`} aria-pressed={picked.includes(state)} onClick={() => setPicked((current) => toggled(current, state))}>
                  {state} <b>{count}</b>
                </button>
              ))}
            </div>
          )} />
      ))}
    </div>
  );
}

function BeanTable<T>({ bean, title, noun, columns, keyOf, textOf, stateOf, loading, onRefresh, picked, chips }: {
  bean: MigrationBean<T>; title: string | undefined; noun: string; columns: readonly Column<T>[]; keyOf: (item: T) => string; textOf: (item: T) => string;
  stateOf: (item: T) => string; loading: boolean; onRefresh: () => void; picked: readonly string[]; chips: ComponentChildren;
}) {
  const inState = useMemo(() => (picked.length === 0 ? bean.items : bean.items.filter((item) => picked.includes(stateOf(item)))), [bean, picked]);
  const [query, setQuery, shown] = useSearch(inState, textOf);
  return (
    <>
      {title && <h2>{title}</h2>}
      <ViewToolbar count={`${shown.length} of ${plural(bean.items.length, noun)}`} loading={loading} onRefresh={onRefresh}>
        <SearchInput value={query} onInput={setQuery} label={`Search ${noun}s`} />
        {chips}
      </ViewToolbar>
      <VirtualTable items={shown} keyOf={keyOf} label={`${noun}s`} columns={columns} rowClass={(item) => `state-${stateOf(item).toLowerCase()}`} />
    </>
  );
}
