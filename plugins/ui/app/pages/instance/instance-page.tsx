import { useEffect, useRef } from 'preact/hooks';
import { Lazy } from '../../components/lazy';
import { StatusBadge } from '../../components/status';
import { formatInstant } from '../../format';
import { visibleEndpoints, type Instance } from 'vigil/domain';
import { labelOf, sortedInstances } from '../../model/rows';
import { href } from '../../router';
import { useStore } from '../../store';
import { applicationOf, usePermissions } from '../../permissions';
import { Actions } from './actions';
import { Overview } from './overview';
import { viewsFor, type ViewSpec } from './view-registry';

/** One instance: its live status and details, and the views of what it exposes through the proxy. */
export function InstancePage({ id, tab }: { id: string; tab: string | undefined }) {
  const store = useStore();
  const permissions = usePermissions();
  const instance = store.instance(id);
  if (!store.loaded || !permissions.known) return <section class="page"><p class="summary">Loading…</p></section>;
  if (!instance) {
    return (
      <section class="page">
        <p class="back"><a href={href()}>← Applications</a></p>
        <div class="empty"><h2>Instance {id} is not registered</h2><p>It may have deregistered; the journal keeps its events.</p></div>
      </section>
    );
  }
  // What the caller may not read (a sensitive endpoint, for all but admins) has no view and no button.
  const endpoints = new Set(visibleEndpoints(instance).map((endpoint) => endpoint.id)
    .filter((endpoint) => permissions.mayUseEndpoint(endpoint, false, applicationOf(instance))));
  const views = viewsFor(endpoints).filter((view) => !view.writes || view.needs.some((endpoint) => permissions.mayUseEndpoint(endpoint, true, applicationOf(instance))));
  const current = views.find((view) => view.id === tab);
  return <InstanceLayout id={id} instance={instance} endpoints={endpoints} views={views} current={current} />;
}

function InstanceLayout({ id, instance, endpoints, views, current }: { id: string; instance: Instance; endpoints: ReadonlySet<string>; views: readonly ViewSpec[]; current: ViewSpec | undefined }) {
  const nav = useRef<HTMLElement>(null);
  // A long list of views scrolls: the one shown is kept in sight.
  useEffect(() => nav.current?.querySelector('[aria-current=page]')?.scrollIntoView({ block: 'nearest' }), [current?.id]);
  const name = instance.registration?.name ?? '';
  return (
    <section class="page instance">
      <p class="back"><a href={href()}>← Applications</a> <span class="muted">/</span> <a href={href('applications', name)}>{name}</a></p>
      <header class="instance-head">
        <StatusBadge status={instance.statusInfo.status} />
        <h1>{name}</h1>
        <InstanceSwitcher id={id} name={name} tab={current?.id} />
        <span class="muted mono">{instance.id}</span>
        <span class="muted">status since {formatInstant(instance.statusTimestamp)}</span>
        <span class="spacer" />
        <Actions instance={instance} endpoints={endpoints} />
      </header>
      <div class="instance-body">
        <nav class="view-nav" aria-label="Instance views" ref={nav}>
          <a href={href('instances', id)} aria-current={current ? undefined : 'page'}>Overview</a>
          {groupsOf(views).map(([group, members]) => (
            <div class="view-group" key={group} role="group" aria-label={group}>
              <span class="view-group-label">{group}</span>
              {members.map((view) => (
                <a key={view.id} href={href('instances', id, view.id)} aria-current={view.id === current?.id ? 'page' : undefined}>{view.label}</a>
              ))}
            </div>
          ))}
        </nav>
        <div class="view-content">
          {/* Keyed by instance and view, so switching never shows the previous one's data. */}
          {current
            ? <Lazy key={`${id}/${current.id}`} load={current.load} props={{ instance, endpoints }} />
            : <Overview instance={instance} />}
        </div>
      </div>
    </section>
  );
}

function groupsOf(views: readonly ViewSpec[]): [string, ViewSpec[]][] {
  const groups = new Map<string, ViewSpec[]>();
  for (const view of views) groups.set(view.group, [...(groups.get(view.group) ?? []), view]);
  return [...groups];
}

/** The other instances of the same application, one pick away, on the same view. */
function InstanceSwitcher({ id, name, tab }: { id: string; name: string; tab: string | undefined }) {
  const store = useStore();
  const app = store.applications().find((candidate) => candidate.name === name);
  if (!app || app.instances.length < 2) return <span class="muted">{labelOf(store.instance(id)!)}</span>;
  return (
    <select class="instance-switcher" aria-label={`Instance of ${name}`} value={id}
      onChange={(event) => { location.hash = href('instances', (event.currentTarget as HTMLSelectElement).value, ...(tab ? [tab] : [])); }}>
      {sortedInstances(app).map((other) => <option key={other.id} value={other.id}>{labelOf(other)} ({other.statusInfo.status})</option>)}
    </select>
  );
}
