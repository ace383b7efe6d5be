import { useEffect, useMemo, useState } from 'preact/hooks';
import { applicationActuatorPath, fanOutJson, getJson, messageOf, send } from '../../api';
import type { FanOutResult } from 'vigil/domain';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { cacheRows, evictPath, type CacheRow, type CachesBody } from '../instance/views/caches';
import { FanOutResults } from './fan-out';
import { usePermissions } from '../../permissions';

/**
 * The caches of every instance of an application (the union, with how many instances hold each),
 * evicted on all of them at once (by a caller who may) through the application-wide proxy, each instance's answer shown.
 */
export function ApplicationCaches({ name }: { name: string }) {
  const [answers, setAnswers] = useState<readonly FanOutResult[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [asking, setAsking] = useState<CacheRow | 'all' | null>(null);
  const [last, setLast] = useState<{ title: string; results: readonly FanOutResult[] } | null>(null);
  const writable = usePermissions().mayUseEndpoint('caches', true, name);
  useEffect(() => {
    getJson<FanOutResult[]>(applicationActuatorPath(name, 'caches')).then((value) => { setAnswers(value); setError(null); }, (failure: unknown) => setError(messageOf(failure)));
  }, [name, round]);
  const rows = useMemo(() => {
    const byKey = new Map<string, CacheRow & { holders: number }>();
    for (const answer of answers ?? []) {
      for (const row of cacheRows(fanOutJson<CachesBody>(answer))) byKey.set(row.key, { ...row, holders: (byKey.get(row.key)?.holders ?? 0) + 1 });
    }
    return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name));
  }, [answers]);
  const evict = async (target: CacheRow | 'all') => {
    setAsking(null);
    try {
      const res = await send('DELETE', applicationActuatorPath(name, target === 'all' ? 'caches' : evictPath(target)));
      setLast({ title: target === 'all' ? 'Every cache evicted' : `Cache ${target.name} evicted`, results: (await res.json()) as FanOutResult[] });
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  return (
    <div class="list-view">
      <div class="toolbar">
        <span class="muted" role="status">{answers ? `${rows.length} caches on ${answers.length} instances` : 'Loading…'}</span>
        {writable && <button type="button" class="danger" disabled={rows.length === 0} onClick={() => setAsking('all')}>Evict all…</button>}
        <span class="spacer" />
        <button type="button" onClick={() => setRound((n) => n + 1)}>Refresh</button>
      </div>
      {error && <p class="error">{error}</p>}
      {last && <FanOutResults title={last.title} results={last.results} />}
      {rows.length > 0 && (
        <table class="grid-table" aria-label="Caches">
          <thead><tr><th>Cache</th><th>Cache manager</th><th>Instances</th><th /></tr></thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key} data-cache={row.name}>
                <td class="mono">{row.name}</td><td>{row.manager}</td><td class="num">{row.holders} of {answers?.length ?? 0}</td>
                <td class="actions-cell">{writable && <button type="button" onClick={() => setAsking(row)}>Evict…</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {asking && (
        <ConfirmDialog title={asking === 'all' ? `Evict every cache of ${name}?` : `Evict ${asking.name} on every instance?`}
          message={`On each of the ${answers?.length ?? 0} instances of ${name}, ${asking === 'all' ? 'every cache is' : `cache ${asking.name} is`} emptied.`}
          confirmLabel="Evict" onConfirm={() => void evict(asking)} onCancel={() => setAsking(null)} />
      )}
    </div>
  );
}
