import { useState } from 'preact/hooks';
import { messageOf, send } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { StatusBadge } from '../../components/status';
import { formatInstant } from '../../format';
import { activeWindows, refreshOverlay, shortfallOf, useNotifyOverlay, type ExpectationState, type MaintenanceWindow } from '../../model/notify-overlay';
import { labelOf, sortedInstances } from '../../model/rows';
import { href } from '../../router';
import { useStore } from '../../store';
import { usePermissions } from '../../permissions';
import { ApplicationCaches } from './app-caches';
import { ApplicationLoggers } from './app-loggers';

const TABS = [['instances', 'Instances'], ['loggers', 'Loggers'], ['caches', 'Caches']] as const;

/**
 * One application: its instances, and what can be done to all of them at once: set logger levels
 * and evict caches (through `/applications/{name}/actuator/**`, each instance's answer shown),
 * deregister the whole application, or start an hour of maintenance for it (and end it), each
 * shown only to a caller who may. It says when the application is in a maintenance window or
 * short of its fleet expectation.
 */
export default function ApplicationPage({ name, tab }: { name: string; tab: string | undefined }) {
  const store = useStore();
  const overlay = useNotifyOverlay();
  const permissions = usePermissions();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const app = store.applications().find((candidate) => candidate.name === name);
  if (!store.loaded) return <section class="page"><p class="summary">Loading…</p></section>;
  if (!app) {
    return (
      <section class="page">
        <p class="back"><a href={href()}>← Applications</a></p>
        <ShortfallNote shortfall={shortfallOf(overlay, name)} />
        <div class="empty"><h2>No instance of {name} is registered</h2></div>
      </section>
    );
  }
  const current = TABS.find(([id]) => id === tab)?.[0] ?? 'instances';
  const deregister = async () => {
    setAsking(false);
    try {
      await send('DELETE', `/applications/${encodeURIComponent(name)}`);
      location.hash = '#/';
    } catch (failure) {
      setError(`Deregistering failed: ${messageOf(failure)}`);
    }
  };
  return (
    <section class="page instance application">
      <p class="back"><a href={href()}>← Applications</a></p>
      <header class="instance-head">
        <StatusBadge status={app.status} />
        <h1>{app.name}</h1>
        <span class="muted">{app.instances.length} instance{app.instances.length === 1 ? '' : 's'}</span>
        {app.buildVersion && <span class="muted">version {app.buildVersion}</span>}
        {activeWindows(overlay, app.name).length > 0 && <span class="tag maintenance">maintenance</span>}
        <span class="spacer" />
        {overlay.available && permissions.may('maintenance.manage', app.name) && <MaintenanceButton name={app.name} windows={activeWindows(overlay, app.name)} onError={setError} />}
        {permissions.may('applications.deregister', app.name) && <button type="button" onClick={() => setAsking(true)}>Deregister…</button>}
      </header>
      {error && <p class="error" role="alert">{error}</p>}
      <MaintenanceNote windows={activeWindows(overlay, app.name)} />
      <ShortfallNote shortfall={shortfallOf(overlay, app.name)} />
      <nav class="tabs" aria-label="Application views">
        {TABS.map(([id, label]) => <a key={id} href={href('applications', name, id)} aria-current={id === current ? 'page' : undefined}>{label}</a>)}
      </nav>
      {current === 'loggers' ? <ApplicationLoggers key={name} name={name} />
        : current === 'caches' ? <ApplicationCaches key={name} name={name} />
          : (
            <table class="grid-table" aria-label="Instances">
              <thead><tr><th>Status</th><th>Instance</th><th>Id</th><th>Version</th><th>Status since</th></tr></thead>
              <tbody>
                {sortedInstances(app).map((instance) => (
                  <tr key={instance.id} data-instance={instance.id}>
                    <td><StatusBadge status={instance.statusInfo.status} /></td>
                    <td><a href={href('instances', instance.id)}>{labelOf(instance)}</a></td>
                    <td class="mono muted">{instance.id}</td>
                    <td>{instance.buildVersion ?? ''}</td>
                    <td class="muted">{formatInstant(instance.statusTimestamp)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      {asking && (
        <ConfirmDialog title={`Deregister ${app.name}?`} message={`${app.instances.length === 1 ? 'The only instance' : `All ${app.instances.length} instances`} of ${app.name} ${app.instances.length === 1 ? 'is' : 'are'} deregistered; clients that heartbeat register again.`}
          confirmLabel="Deregister" onConfirm={() => void deregister()} onCancel={() => setAsking(false)} />
      )}
    </section>
  );
}

/** An hour of maintenance, as an operator starts it from the page. */
const ONE_HOUR = { duration: '1h', reason: 'started from the dashboard' };

/**
 * "Maintenance for 1 h" while no window of this page's making runs; "End maintenance" ends the
 * running windows made for exactly this application (others, wider or recurring, are ended where
 * they were made: the notifications page or the config).
 */
function MaintenanceButton({ name, windows, onError }: { name: string; windows: readonly MaintenanceWindow[]; onError: (message: string | null) => void }) {
  const [busy, setBusy] = useState(false);
  const own = windows.filter((window) => !window.recurring && window.applications.length === 1 && window.applications[0] === name && window.instances.length === 0);
  const act = async (work: () => Promise<unknown>, what: string) => {
    setBusy(true);
    onError(null);
    try {
      await work();
      await refreshOverlay();
    } catch (failure) {
      onError(`${what} failed: ${messageOf(failure)}`);
    } finally {
      setBusy(false);
    }
  };
  if (own.length > 0) {
    return (
      <button type="button" disabled={busy} title="End the maintenance started for this application: notifications resume, and what changed during it is reported"
        onClick={() => void act(() => Promise.all(own.map((window) => send('DELETE', `/maintenance/${encodeURIComponent(window.id)}`))), 'Ending maintenance')}>End maintenance</button>
    );
  }
  return (
    <button type="button" disabled={busy} title="Hold back this application's notifications for an hour; what changed is reported when it ends"
      onClick={() => void act(() => send('POST', '/maintenance', { json: { applications: [name], ...ONE_HOUR } }), 'Starting maintenance')}>Maintenance for 1 h</button>
  );
}

function MaintenanceNote({ windows }: { windows: readonly MaintenanceWindow[] }) {
  if (windows.length === 0) return null;
  return (
    <p class="note maintenance-note" role="status">
      In maintenance: {windows.map((window) => (
        <span key={window.id} class="window" data-window={window.id}>
          <b>{window.id}</b> until {formatInstant(window.end)}{window.reason ? ` (${window.reason})` : ''}, by {window.createdBy}
        </span>
      ))}. Its notifications are held back; what changed is reported when the window ends.
    </p>
  );
}

function ShortfallNote({ shortfall }: { shortfall: ExpectationState | undefined }) {
  if (!shortfall) return null;
  const verdict = shortfall.state === 'degraded' ? 'Degraded' : shortfall.state === 'disappeared' ? 'Disappeared' : 'Below its expectation';
  return (
    <p class={`note shortfall-note ${shortfall.state}`} role="status">
      {verdict}: {shortfall.up} of {shortfall.total} instance{shortfall.total === 1 ? '' : 's'} UP, {shortfall.minUp} required
      {shortfall.since ? ` since ${formatInstant(shortfall.since)}` : ''}.
    </p>
  );
}
