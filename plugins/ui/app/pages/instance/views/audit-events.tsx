import { useMemo, useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf } from '../../../api';
import { JsonTree } from '../../../components/json-tree';
import { VirtualTable } from '../../../components/virtual-table';
import { formatInstant } from '../../../format';
import { usePoll } from '../../../use-poll';
import type { InstanceViewProps } from '../view-props';
import { DetailPanel, plural } from './shared';

interface AuditEvent { readonly timestamp: string; readonly principal: string; readonly type: string; readonly data?: Record<string, unknown> }
interface Row extends AuditEvent { readonly key: string }

/**
 * The instance's audit log, newest first. Principal, type and "after" are the endpoint's own query
 * parameters (the instance filters), so a long log is never fetched whole to find one user.
 */
export default function AuditEventsView({ instance }: InstanceViewProps) {
  const [principal, setPrincipal] = useState('');
  const [type, setType] = useState('');
  const [after, setAfter] = useState('');
  const [applied, setApplied] = useState({ principal: '', type: '', after: '' });
  const [events, setEvents] = useState<readonly AuditEvent[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  usePoll(async (signal) => {
    const query = new URLSearchParams();
    if (applied.principal) query.set('principal', applied.principal);
    if (applied.type) query.set('type', applied.type);
    if (applied.after) query.set('after', new Date(applied.after).toISOString());
    try {
      const body = await getJson<{ events?: AuditEvent[] }>(actuatorPath(instance.id, `auditevents${query.toString() ? `?${query}` : ''}`), signal);
      setEvents(body.events ?? []);
      setError(null);
    } catch (failure) {
      if (!signal.aborted) setError(`auditevents: ${messageOf(failure)}`);
    }
  }, 2 ** 31 - 1, [instance.id, applied, round]);
  const rows = useMemo(() => [...(events ?? [])].sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1))
    .map((event, index) => ({ ...event, key: `${event.timestamp}/${index}` })), [events]);
  const types = useMemo(() => [...new Set((events ?? []).map((event) => event.type))].sort(), [events]);
  const [selected, setSelected] = useState<Row | null>(null);
  return (
    <div class="list-view">
      <form class="toolbar" onSubmit={(event) => { event.preventDefault(); setApplied({ principal: principal.trim(), type: type.trim(), after }); }}>
        <input type="search" class="filter narrow" placeholder="Principal" aria-label="Principal" value={principal} onInput={(event) => setPrincipal((event.currentTarget as HTMLInputElement).value)} />
        <input type="search" class="filter narrow" placeholder="Type" aria-label="Event type" list="audit-types" value={type} onInput={(event) => setType((event.currentTarget as HTMLInputElement).value)} />
        <datalist id="audit-types">{types.map((name) => <option key={name} value={name} />)}</datalist>
        <label class="check">after <input type="datetime-local" aria-label="After" value={after} onInput={(event) => setAfter((event.currentTarget as HTMLInputElement).value)} /></label>
        <button type="submit">Apply</button>
        <span class="muted" role="status">{events === undefined && !error ? 'Loading…' : plural(rows.length, 'event')}</span>
        <span class="spacer" />
        <button type="button" onClick={() => setRound((n) => n + 1)}>Refresh</button>
      </form>
      {error && <p class="error">{error}</p>}
      <div class="split">
        <VirtualTable items={rows} keyOf={(row) => row.key} label="Audit events" selected={selected?.key ?? null} onSelect={setSelected} columns={[
          { label: 'Time', width: '9rem', render: (row) => formatInstant(row.timestamp), className: 'mono muted' },
          { label: 'Principal', width: '10rem', render: (row) => row.principal },
          { label: 'Type', width: 'minmax(12rem, 1fr)', render: (row) => row.type, className: 'mono' },
          { label: 'Remote address', width: '10rem', render: (row) => remoteOf(row), className: 'mono muted' },
        ]} />
        {selected && (
          <DetailPanel title={selected.type} onClose={() => setSelected(null)}>
            <dl class="pairs"><dt>Time</dt><dd>{selected.timestamp}</dd><dt>Principal</dt><dd>{selected.principal}</dd></dl>
            <JsonTree value={selected.data ?? {}} />
          </DetailPanel>
        )}
      </div>
    </div>
  );
}

function remoteOf(event: AuditEvent): string {
  const details = event.data?.details as { remoteAddress?: unknown } | undefined;
  return typeof details?.remoteAddress === 'string' ? details.remoteAddress : '';
}
