import { useState } from 'preact/hooks';
import { messageOf, send } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { StatusBadge } from '../../components/status';
import { formatInstant } from '../../format';
import { labelOf, sortedInstances } from '../../model/rows';
import { href } from '../../router';
import { useStore } from '../../store';
import { ApplicationCaches } from './app-caches';
import { ApplicationLoggers } from './app-loggers';

const TABS = [['instances', 'Instances'], ['loggers', 'Loggers'], ['caches', 'Caches']] as const;

/**
 * One application: its instances, and what can be done to all of them at once: set logger levels
 * and evict caches (through `/applications/{name}/actuator/**`, each instance's answer shown),
 * or deregister the whole application.
 */
export default function ApplicationPage({ name, tab }: { name: string; tab: string | undefined }) {
  const store = useStore();
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const app = store.applications().find((candidate) => candidate.name === name);
  if (!store.loaded) return <section class="page"><p class="summary">Loading…</p></section>;
  if (!app) {
    return (
      <section class="page">
        <p class="back"><a href={href()}>← Applications</a></p>
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
        <span class="spacer" />
        <button type="button" onClick={() => setAsking(true)}>Deregister…</button>
      </header>
      {error && <p class="error" role="alert">{error}</p>}
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
