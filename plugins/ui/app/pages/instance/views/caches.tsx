import { useMemo, useState } from 'preact/hooks';
import { actuatorPath, messageOf, send } from '../../../api';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useActuator } from '../use-actuator';
import { useMayWrite } from '../../../permissions';
import type { InstanceViewProps } from '../view-props';
import { SearchInput, ViewToolbar, plural, useSearch } from './shared';

export interface CachesBody { readonly cacheManagers?: Record<string, { readonly caches?: Record<string, { readonly target?: string }> }> }
export interface CacheRow { readonly key: string; readonly manager: string; readonly name: string; readonly target: string }

/** Every cache of every cache manager, as rows. */
export function cacheRows(body: CachesBody | undefined): CacheRow[] {
  return Object.entries(body?.cacheManagers ?? {}).flatMap(([manager, { caches }]) =>
    Object.entries(caches ?? {}).map(([name, { target }]) => ({ key: `${manager}/${name}`, manager, name, target: target ?? '' })));
}

/** The path that evicts one cache: its manager named, since two managers may hold caches of one name. */
export const evictPath = (row: CacheRow): string => `caches/${encodeURIComponent(row.name)}?cacheManager=${encodeURIComponent(row.manager)}`;

/** The instance's caches; evict one or all (a caller who may), each after a confirmation. */
export default function CachesView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<CachesBody>(instance.id, 'caches');
  const rows = useMemo(() => cacheRows(data), [data]);
  const [query, setQuery, shown] = useSearch(rows, (row) => `${row.name} ${row.manager} ${row.target}`);
  const [asking, setAsking] = useState<CacheRow | 'all' | null>(null);
  const [outcome, setOutcome] = useState<{ text: string; failed: boolean } | null>(null);
  const writable = useMayWrite(instance, 'caches');
  const evict = async (target: CacheRow | 'all') => {
    setAsking(null);
    try {
      await send('DELETE', actuatorPath(instance.id, target === 'all' ? 'caches' : evictPath(target)));
      setOutcome({ text: target === 'all' ? 'Every cache evicted' : `Cache ${target.name} evicted`, failed: false });
    } catch (failure) {
      setOutcome({ text: `Eviction failed: ${messageOf(failure)}`, failed: true });
    }
  };
  return (
    <div class="list-view">
      <ViewToolbar count={plural(rows.length, 'cache')} loading={loading} onRefresh={reload}>
        <SearchInput value={query} onInput={setQuery} label="Search caches" />
        {writable && <button type="button" class="danger" disabled={rows.length === 0} onClick={() => setAsking('all')}>Evict all…</button>}
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      {outcome && <p class={outcome.failed ? 'error' : 'ok'} role="status">{outcome.text}</p>}
      {data && rows.length === 0 && <p class="muted">No caches.</p>}
      {shown.length > 0 && (
        <table class="grid-table" aria-label="Caches">
          <thead><tr><th>Cache</th><th>Cache manager</th><th>Target</th><th /></tr></thead>
          <tbody>
            {shown.map((row) => (
              <tr key={row.key} data-cache={row.name}>
                <td class="mono">{row.name}</td>
                <td>{row.manager}</td>
                <td class="mono muted">{row.target}</td>
                <td class="actions-cell">{writable && <button type="button" onClick={() => setAsking(row)}>Evict…</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {asking && (
        <ConfirmDialog title={asking === 'all' ? 'Evict every cache?' : `Evict cache ${asking.name}?`}
          message={`${instance.registration?.name ?? ''} (${instance.id}): ${asking === 'all' ? `all ${rows.length} caches are` : 'every entry of this cache is'} removed; the application fills ${asking === 'all' ? 'them' : 'it'} again as it goes.`}
          confirmLabel="Evict" onConfirm={() => void evict(asking)} onCancel={() => setAsking(null)} />
      )}
    </div>
  );
}
