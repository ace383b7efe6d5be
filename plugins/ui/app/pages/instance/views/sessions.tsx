import { useState } from 'preact/hooks';
import { ApiError, actuatorPath, getJson, messageOf, send } from '../../../api';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { formatInstant } from '../../../format';
import type { InstanceViewProps } from '../view-props';
import { useMayWrite } from '../../../permissions';
import { formatMs, plural } from './shared';

interface Session {
  readonly id: string;
  readonly attributeNames?: readonly string[];
  readonly creationTime?: string;
  readonly lastAccessedTime?: string;
  readonly maxInactiveInterval?: number;
  readonly expired?: boolean;
}

/**
 * Spring Session's sessions: the endpoint lists them by user name only (it has no "all"), or
 * finds one by id. A session can be deleted (by a caller who may), which signs its user out, after a confirmation.
 */
export default function SessionsView({ instance }: InstanceViewProps) {
  const [by, setBy] = useState<'username' | 'id'>('username');
  const [value, setValue] = useState('');
  const [sessions, setSessions] = useState<readonly Session[] | undefined>(undefined);
  const [searched, setSearched] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [asking, setAsking] = useState<Session | null>(null);
  const writable = useMayWrite(instance, 'sessions');

  const search = async (kind = by, text = value.trim()) => {
    if (!text) return;
    setError(null);
    try {
      if (kind === 'username') {
        const body = await getJson<{ sessions?: Session[] }>(actuatorPath(instance.id, `sessions?username=${encodeURIComponent(text)}`));
        setSessions(body.sessions ?? []);
      } else {
        setSessions([await getJson<Session>(actuatorPath(instance.id, `sessions/${encodeURIComponent(text)}`))]);
      }
    } catch (failure) {
      setSessions(failure instanceof ApiError && failure.status === 404 ? [] : undefined);
      if (!(failure instanceof ApiError && failure.status === 404)) setError(messageOf(failure));
    }
    setSearched(`${kind === 'username' ? 'user' : 'session id'} ${text}`);
  };
  const remove = async (session: Session) => {
    setAsking(null);
    try {
      await send('DELETE', actuatorPath(instance.id, `sessions/${encodeURIComponent(session.id)}`));
      setOutcome(`Session ${session.id} deleted`);
      setSessions((current) => current?.filter((other) => other.id !== session.id));
    } catch (failure) {
      setOutcome(`Deleting session ${session.id} failed: ${messageOf(failure)}`);
    }
  };
  return (
    <div class="list-view">
      <form class="toolbar" onSubmit={(event) => { event.preventDefault(); setOutcome(null); void search(); }}>
        <select aria-label="Search by" value={by} onChange={(event) => setBy((event.currentTarget as HTMLSelectElement).value as 'username' | 'id')}>
          <option value="username">User name</option>
          <option value="id">Session id</option>
        </select>
        <input type="search" class="filter" aria-label={by === 'username' ? 'User name' : 'Session id'} placeholder={by === 'username' ? 'User name' : 'Session id'} value={value}
          onInput={(event) => setValue((event.currentTarget as HTMLInputElement).value)} />
        <button type="submit">Search</button>
        {sessions && <span class="muted" role="status">{plural(sessions.length, 'session')} for {searched}</span>}
      </form>
      {error && <p class="error">{error}</p>}
      {outcome && <p class="ok" role="status">{outcome}</p>}
      {sessions === undefined && !error && <p class="muted">The sessions endpoint finds sessions by user name or by id.</p>}
      {sessions && sessions.length > 0 && (
        <table class="grid-table" aria-label="Sessions">
          <thead><tr><th>Session id</th><th>Created</th><th>Last accessed</th><th>Expires after idle</th><th>Attributes</th><th /></tr></thead>
          <tbody>
            {sessions.map((session) => (
              <tr key={session.id} data-session={session.id}>
                <td class="mono">{session.id}{session.expired ? <span class="tag">expired</span> : null}</td>
                <td>{session.creationTime ? formatInstant(session.creationTime) : '–'}</td>
                <td>{session.lastAccessedTime ? formatInstant(session.lastAccessedTime) : '–'}</td>
                <td>{session.maxInactiveInterval !== undefined ? formatMs(session.maxInactiveInterval * 1000) : '–'}</td>
                <td class="mono muted">{(session.attributeNames ?? []).join(', ')}</td>
                <td class="actions-cell">{writable && <button type="button" class="danger" onClick={() => setAsking(session)}>Delete…</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {asking && (
        <ConfirmDialog title="Delete this session?" message={`Session ${asking.id} ends now; its user has to sign in again.`}
          confirmLabel="Delete" onConfirm={() => void remove(asking)} onCancel={() => setAsking(null)} />
      )}
    </div>
  );
}
