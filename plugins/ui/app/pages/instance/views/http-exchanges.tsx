import { useMemo, useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf } from '../../../api';
import { JsonTree } from '../../../components/json-tree';
import { VirtualTable } from '../../../components/virtual-table';
import { formatInstant } from '../../../format';
import { toggled } from '../../../list-toggle';
import { usePoll } from '../../../use-poll';
import type { InstanceViewProps } from '../view-props';
import { DetailPanel, SearchInput, ViewToolbar, durationMs, formatMs, plural, useSearch } from './shared';

interface Exchange {
  readonly timestamp: string;
  readonly principal?: { name?: string } | null;
  readonly session?: { id?: string } | null;
  readonly request: { method: string; uri: string; headers?: Record<string, readonly string[]>; remoteAddress?: string | null };
  readonly response: { status: number; headers?: Record<string, readonly string[]> };
  /** Boot 3: an ISO-8601 duration (`PT0.023S`); Boot 2's httptrace: milliseconds. */
  readonly timeTaken?: string | number | null;
}
interface Row extends Exchange { readonly key: string; readonly path: string; readonly ms: number | undefined }

const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

/**
 * The recent HTTP exchanges the instance recorded (Boot 3's `httpexchanges`, Boot 2's `httptrace`),
 * newest first, filterable by text and status class, optionally without the actuator's own
 * requests; kept current every 5 s while "Live" is on.
 */
export default function HttpExchangesView({ instance, endpoints }: InstanceViewProps) {
  const endpoint = endpoints.has('httpexchanges') ? 'httpexchanges' : 'httptrace';
  const [exchanges, setExchanges] = useState<readonly Exchange[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  const [round, setRound] = useState(0);
  usePoll(async (signal) => {
    try {
      const body = await getJson<{ exchanges?: Exchange[]; traces?: Exchange[] }>(actuatorPath(instance.id, endpoint), signal);
      setExchanges(body.exchanges ?? body.traces ?? []);
      setError(null);
    } catch (failure) {
      if (!signal.aborted) setError(`${endpoint}: ${messageOf(failure)}`);
    }
  }, live ? 5000 : 2 ** 31 - 1, [instance.id, endpoint, round]);

  const rows = useMemo(() => [...(exchanges ?? [])]
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1))
    .map((exchange, index) => ({ ...exchange, key: `${exchange.timestamp}/${index}`, path: pathOf(exchange.request.uri), ms: durationMs(exchange.timeTaken) })), [exchanges]);
  const [statuses, setStatuses] = useState<readonly string[]>([]);
  const [withActuator, setWithActuator] = useState(false);
  const narrowed = useMemo(() => rows.filter((row) =>
    (statuses.length === 0 || statuses.includes(`${String(row.response.status)[0]}xx`)) && (withActuator || !/\/actuator(\/|$)/.test(row.path))), [rows, statuses, withActuator]);
  const [query, setQuery, shown] = useSearch(narrowed, (row) => `${row.request.method} ${row.path} ${row.response.status} ${row.principal?.name ?? ''}`);
  const [selected, setSelected] = useState<Row | null>(null);
  return (
    <div class="list-view">
      <ViewToolbar count={`${shown.length} of ${plural(rows.length, 'exchange')}`} loading={exchanges === undefined && !error} onRefresh={() => setRound((n) => n + 1)}>
        <SearchInput value={query} onInput={setQuery} label="Search exchanges" placeholder="Method, path, status or user" />
        <div class="chips" role="group" aria-label="Status">
          {STATUS_CLASSES.map((status) => (
            <button type="button" key={status} class={`chip status-${status}`} aria-pressed={statuses.includes(status)} onClick={() => setStatuses((current) => toggled(current, status))}>{status}</button>
          ))}
        </div>
        <label class="check"><input type="checkbox" checked={withActuator} onChange={(event) => setWithActuator((event.currentTarget as HTMLInputElement).checked)} /> actuator requests</label>
        <label class="check"><input type="checkbox" checked={live} onChange={(event) => setLive((event.currentTarget as HTMLInputElement).checked)} /> Live</label>
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      <div class="split">
        <VirtualTable items={shown} keyOf={(row) => row.key} label="HTTP exchanges" selected={selected?.key ?? null} onSelect={setSelected} columns={[
          { label: 'Time', width: '9.5rem', render: (row) => formatInstant(row.timestamp), className: 'mono muted' },
          { label: 'Method', width: '5rem', render: (row) => row.request.method, className: 'mono' },
          { label: 'Path', width: 'minmax(12rem, 3fr)', render: (row) => row.path, className: 'mono' },
          { label: 'Status', width: '4.5rem', render: (row) => <span class={`http-status status-${String(row.response.status)[0]}xx`}>{row.response.status}</span> },
          { label: 'Time taken', width: '6.5rem', render: (row) => formatMs(row.ms), className: 'num' },
          { label: 'User', width: '7rem', render: (row) => row.principal?.name ?? '', className: 'muted' },
        ]} />
        {selected && (
          <DetailPanel title={`${selected.request.method} ${selected.path}`} onClose={() => setSelected(null)}>
            <dl class="pairs">
              <dt>Time</dt><dd>{selected.timestamp}</dd>
              <dt>URI</dt><dd class="mono">{selected.request.uri}</dd>
              <dt>Status</dt><dd>{selected.response.status}</dd>
              <dt>Time taken</dt><dd>{formatMs(selected.ms)}</dd>
              <dt>Remote address</dt><dd>{selected.request.remoteAddress ?? '–'}</dd>
              <dt>Principal</dt><dd>{selected.principal?.name ?? '–'}</dd>
              <dt>Session</dt><dd class="mono">{selected.session?.id ?? '–'}</dd>
            </dl>
            <h3>Request headers</h3>
            <JsonTree value={selected.request.headers ?? {}} />
            <h3>Response headers</h3>
            <JsonTree value={selected.response.headers ?? {}} />
          </DetailPanel>
        )}
      </div>
    </div>
  );
}

function pathOf(uri: string): string {
  try {
    const url = new URL(uri);
    return `${url.pathname}${url.search}`;
  } catch {
    return uri;
  }
}
