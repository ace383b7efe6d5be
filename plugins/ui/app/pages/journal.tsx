import { useEffect, useMemo, useState } from 'preact/hooks';
import { JsonTree } from '../components/json-tree';
import { StatusBadge } from '../components/status';
import { VirtualList } from '../components/virtual-list';
import { formatInstant } from '../format';
import { toggled } from '../list-toggle';
import type { InstanceEventType } from 'vigil/domain';
import type { JournalEntry } from '../model/journal';
import type { LiveStore } from '../model/live-store';
import { href } from '../router';
import { useStore } from '../store';

const TYPES: readonly InstanceEventType[] = ['REGISTERED', 'REGISTRATION_UPDATED', 'STATUS_CHANGED', 'ENDPOINTS_DETECTED', 'INFO_CHANGED', 'DEREGISTERED'];

interface JournalFilter {
  /** Part of an instance id or application name. */
  readonly instance: string;
  /** Types to show; empty shows all. */
  readonly types: readonly InstanceEventType[];
}

let savedFilter: JournalFilter = { instance: '', types: [] };

/** Every event, newest first, live; filterable by instance (id or name) and type. */
export function JournalPage() {
  const store = useStore();
  const [filter, setFilter] = useState(savedFilter);
  const [selected, setSelected] = useState<JournalEntry | null>(null);
  useEffect(() => { savedFilter = filter; }, [filter]);
  useEffect(() => store.loadJournal(), []);
  const { journal } = store;

  const entries = useMemo(() => {
    const needle = filter.instance.trim().toLowerCase();
    const types = filter.types.length > 0 ? new Set(filter.types) : undefined;
    const shown: JournalEntry[] = [];
    const all = journal.entries;
    for (let index = all.length - 1; index >= 0; index -= 1) {
      const entry = all[index]!;
      if (types && !types.has(entry.event.type)) continue;
      if (needle && !entry.event.instance.includes(needle) && !(nameOf(store, entry) ?? '').toLowerCase().includes(needle)) continue;
      shown.push(entry);
    }
    return shown;
  }, [journal.version, filter]);

  const toggleType = (type: InstanceEventType) => setFilter((current) => ({
    ...current,
    types: toggled(current.types, type),
  }));

  return (
    <section class="page journal">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Instance id or application name" aria-label="Filter by instance" value={filter.instance}
          onInput={(event) => { const instance = (event.currentTarget as HTMLInputElement).value; setFilter((current) => ({ ...current, instance })); }} />
        <div class="chips" role="group" aria-label="Filter by type">
          {TYPES.map((type) => <button type="button" key={type} class="chip" aria-pressed={filter.types.includes(type)} onClick={() => toggleType(type)}>{type}</button>)}
        </div>
      </div>
      <p class="summary" role="status" data-testid="journal-summary">
        {entries.length.toLocaleString()} event{entries.length === 1 ? '' : 's'}
        {journal.state === 'loading' && ' (loading the history…)'}
        {journal.error && <span class="error"> {journal.error}</span>}
      </p>
      <div class="split">
        <VirtualList items={entries} rowHeight={36} keyOf={(entry) => entry.key} label="Events" render={(entry) => (
          <div class={`row event-row${selected?.key === entry.key ? ' selected' : ''}`} data-type={entry.event.type} onClick={() => setSelected(entry)}>
            <span class="time mono">{formatInstant(entry.event.timestamp)}</span>
            <span class="event-type">{entry.event.type}</span>
            <span class="app-name">{nameOf(store, entry) ?? ''}</span>
            <a class="mono" href={href('instances', entry.event.instance)} onClick={(event) => event.stopPropagation()}>{entry.event.instance}</a>
            <span class="event-detail">{detail(entry)}</span>
          </div>
        )} />
        {selected && (
          <aside class="card event-detail-panel">
            <h2>{selected.event.type} <button type="button" class="link" onClick={() => setSelected(null)} aria-label="Close">✕</button></h2>
            <JsonTree value={selected.event} />
          </aside>
        )}
      </div>
    </section>
  );
}

function nameOf(store: LiveStore, entry: JournalEntry): string | undefined {
  const { event } = entry;
  if (event.type === 'REGISTERED' || event.type === 'REGISTRATION_UPDATED') return event.registration.name;
  return store.nameOf(event.instance) ?? store.journal.nameOf(event.instance);
}

function detail({ event }: JournalEntry) {
  switch (event.type) {
    case 'STATUS_CHANGED': return <StatusBadge status={event.statusInfo.status} />;
    case 'REGISTERED':
    case 'REGISTRATION_UPDATED': return <span class="muted">{event.registration.healthUrl}</span>;
    case 'ENDPOINTS_DETECTED': return <span class="muted">{event.endpoints.map((endpoint) => endpoint.id).join(', ')}</span>;
    case 'INFO_CHANGED': return <span class="muted">{Object.keys(event.info).join(', ') || 'empty'}</span>;
    default: return null;
  }
}
