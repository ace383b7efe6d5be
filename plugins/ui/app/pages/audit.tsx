import { useEffect, useState } from 'preact/hooks';
import { apiUrl, getJson, messageOf } from '../api';
import { AuditTable } from '../components/audit-table';
import { auditQuery, type AuditEntry, type AuditFilter } from '../model/audit';

const SHOWN = 500;
const EMPTY: AuditFilter = { actor: '', application: '', instance: '', action: '' };

/**
 * The audit trail, for admins: newest first, filtered by actor, application, instance and action
 * (on the server), and live: a stream of what is recorded from now on, with the same filter.
 */
export function AuditPage() {
  const [filter, setFilter] = useState<AuditFilter>(EMPTY);
  const [applied, setApplied] = useState<AuditFilter>(EMPTY);
  const [entries, setEntries] = useState<readonly AuditEntry[]>([]);
  const [live, setLive] = useState(true);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let source: EventSource | undefined;
    let closed = false;
    setError(null);
    getJson<AuditEntry[]>(`/audit${auditQuery(applied, SHOWN)}`).then((first) => {
      if (closed) return;
      setEntries(first);
      if (!live) return;
      // Resumes after the newest entry shown, so nothing recorded in between is missed or doubled.
      source = new EventSource(apiUrl(`/audit${auditQuery(applied)}`));
      const newest = first[0]?.id;
      source.onmessage = (message) => {
        const entry = JSON.parse(message.data as string) as AuditEntry;
        if (newest !== undefined && entry.id <= newest) return;
        setEntries((held) => [entry, ...held].slice(0, SHOWN));
      };
    }, (failure: unknown) => setError(messageOf(failure)));
    return () => {
      closed = true;
      source?.close();
    };
  }, [applied, live]);

  const field = (key: keyof AuditFilter, label: string) => (
    <label>{label} <input name={key} value={filter[key]} onInput={(event) => setFilter({ ...filter, [key]: (event.target as HTMLInputElement).value })} /></label>
  );
  return (
    <section class="audit-page" aria-label="Audit trail">
      <h1>Audit trail</h1>
      <form class="filters" onSubmit={(event) => { event.preventDefault(); setApplied(filter); }}>
        {field('actor', 'Actor')}
        {field('application', 'Application')}
        {field('instance', 'Instance')}
        {field('action', 'Action')}
        <button type="submit">Filter</button>
        <label><input type="checkbox" name="live" checked={live} onChange={(event) => setLive((event.target as HTMLInputElement).checked)} /> Live</label>
      </form>
      {error && <p class="banner error" role="alert">{error}</p>}
      <AuditTable entries={entries} />
    </section>
  );
}

/** An instance's recent actions, for whoever may read the trail; nothing for anyone else. */
export function RecentActions({ instance }: { instance: string }) {
  const [entries, setEntries] = useState<readonly AuditEntry[] | null>(null);
  useEffect(() => {
    let gone = false;
    void mayReadAudit().then(async (may) => {
      if (!may) return;
      const found = await getJson<AuditEntry[]>(`/audit${auditQuery({ instance }, 20)}`);
      if (!gone) setEntries(found);
    }).catch(() => undefined);
    return () => {
      gone = true;
    };
  }, [instance]);
  if (entries === null) return null;
  return (
    <article class="card recent-actions" aria-label="Recent actions">
      <h2>Recent actions</h2>
      <AuditTable entries={entries} compact />
    </article>
  );
}

let mayRead: Promise<boolean> | undefined;

/**
 * Whether the caller may read the audit trail: the plugin is loaded (the session names its path)
 * and the caller holds `admin` (its grants). Asked once per page load, without a request that
 * could be refused.
 */
export function mayReadAudit(): Promise<boolean> {
  return (mayRead ??= (async () => {
    const session = await getJson<{ audit?: string | null }>('/ui/session');
    if (!session.audit) return false;
    const me = await getJson<{ grants: readonly { role: string }[] }>('/access/me');
    return me.grants.some((grant) => grant.role === 'admin');
  })().catch(() => false));
}
