import { formatInstant } from '../format';
import type { AuditEntry } from '../model/audit';
import { href } from '../router';

/** Entries of the audit trail, newest first: when, who, what, where, how it ended. */
export function AuditTable({ entries, compact = false }: { entries: readonly AuditEntry[]; compact?: boolean }) {
  if (entries.length === 0) return <p class="muted">No recorded actions.</p>;
  return (
    <table class="audit-table">
      <thead>
        <tr><th>When</th><th>Who</th><th>Action</th><th>Request</th>{!compact && <th>Application</th>}<th>Status</th><th>Detail</th></tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id} data-audit-id={entry.id}>
            <td>{formatInstant(entry.timestamp)}</td>
            <td>{entry.actor.name}{entry.address && <span class="muted"> {entry.address}</span>}</td>
            <td class="mono">{entry.action}</td>
            <td class="mono">{entry.method ? `${entry.method} ${entry.path ?? ''}` : '–'}</td>
            {!compact && <td>{entry.application ?? '–'}{entry.instance && <> · <a href={href('instances', entry.instance)}>{entry.instance}</a></>}</td>}
            <td>{entry.status ?? '–'}</td>
            <td class="mono">{entry.detail === null ? '' : JSON.stringify(entry.detail)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
