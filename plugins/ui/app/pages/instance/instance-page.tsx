import { StatusBadge } from '../../components/status';
import { formatInstant } from '../../format';
import { visibleEndpoints, type Instance } from '../../model/domain';
import { labelOf } from '../../model/rows';
import { href } from '../../router';
import { useStore } from '../../store';
import { Actions } from './actions';
import { EnvView } from './env-view';
import { LoggersView } from './loggers-view';
import { MetricsView } from './metrics-view';
import { Overview } from './overview';
import { ThreadsView } from './threads-view';

interface Tab {
  readonly id: string;
  readonly label: string;
  /** The actuator endpoint the tab reads through the proxy; the tab shows only when it was detected. */
  readonly endpoint?: string;
}

const TABS: readonly Tab[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'metrics', label: 'Metrics', endpoint: 'metrics' },
  { id: 'env', label: 'Environment', endpoint: 'env' },
  { id: 'loggers', label: 'Loggers', endpoint: 'loggers' },
  { id: 'threads', label: 'Threads', endpoint: 'threaddump' },
];

/** One instance: its live status and details, and the views of what it exposes through the proxy. */
export function InstancePage({ id, tab }: { id: string; tab: string | undefined }) {
  const store = useStore();
  const instance = store.instance(id);
  if (!store.loaded) return <section class="page"><p class="summary">Loading…</p></section>;
  if (!instance) {
    return (
      <section class="page">
        <p class="back"><a href={href()}>← Applications</a></p>
        <div class="empty"><h2>Instance {id} is not registered</h2><p>It may have deregistered; the journal keeps its events.</p></div>
      </section>
    );
  }
  const endpoints = new Set(visibleEndpoints(instance).map((endpoint) => endpoint.id));
  const tabs = TABS.filter((t) => !t.endpoint || endpoints.has(t.endpoint));
  const current = tabs.find((t) => t.id === tab) ?? tabs[0]!;
  return (
    <section class="page instance">
      <p class="back"><a href={href()}>← Applications</a></p>
      <header class="instance-head">
        <StatusBadge status={instance.statusInfo.status} />
        <h1>{instance.registration?.name}</h1>
        <span class="muted">{labelOf(instance)}</span>
        <span class="muted mono">{instance.id}</span>
        <span class="muted">status since {formatInstant(instance.statusTimestamp)}</span>
        <span class="spacer" />
        <Actions instance={instance} endpoints={endpoints} />
      </header>
      <nav class="tabs" aria-label="Instance views">
        {tabs.map((t) => (
          <a key={t.id} href={href('instances', id, t.id)} aria-current={t.id === current.id ? 'page' : undefined}>{t.label}</a>
        ))}
      </nav>
      <TabContent tab={current.id} instance={instance} />
    </section>
  );
}

function TabContent({ tab, instance }: { tab: string; instance: Instance }) {
  // Keyed by instance, so switching instances never shows the previous one's data.
  const key = instance.id;
  switch (tab) {
    case 'metrics': return <MetricsView key={key} id={instance.id} />;
    case 'env': return <EnvView key={key} id={instance.id} />;
    case 'loggers': return <LoggersView key={key} id={instance.id} />;
    case 'threads': return <ThreadsView key={key} id={instance.id} />;
    default: return <Overview instance={instance} />;
  }
}
