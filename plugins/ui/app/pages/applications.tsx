import { useEffect, useMemo, useState } from 'preact/hooks';
import { base, messageOf, post } from '../api';
import { StatusBadge, StatusIcon, statusClass, statusLabel } from '../components/status';
import { VirtualList } from '../components/virtual-list';
import { formatInstant } from '../format';
import { toggled } from '../list-toggle';
import type { Application } from 'vigil/domain';
import { activeWindows, shortfallOf, useNotifyOverlay, type NotifyOverlay } from '../model/notify-overlay';
import { NO_FILTER, buildRows, isFiltering, labelOf, statusCounts, tagOptions, type AppFilter, type Row } from '../model/rows';
import { FILTER_STATUSES, compareStatus } from '../model/status';
import { href } from '../router';
import { useStore } from '../store';
import { usePermissions } from '../permissions';

/** Small fleets see every instance at once; large ones start with one row per application. */
const AUTO_EXPAND_LIMIT = 200;
const ROW_HEIGHT = 40;

// Kept across page changes, so going back from an instance finds the list as it was left.
let savedFilter: AppFilter = NO_FILTER;
const expandedOverrides = new Map<string, boolean>();
let expandAll: boolean | null = null;

/** Opens the list filtered to one application (the wallboard's tiles link here). */
export function showApplication(name: string): void {
  savedFilter = { ...NO_FILTER, text: name };
  location.hash = '#/';
}

export function ApplicationsPage() {
  const store = useStore();
  const overlay = useNotifyOverlay();
  const [filter, setFilter] = useState(savedFilter);
  const [toggles, setToggles] = useState(0);
  useEffect(() => { savedFilter = filter; }, [filter]);

  const apps = store.applications();
  const total = store.instanceCount;
  const automatic = isFiltering(filter) || total <= AUTO_EXPAND_LIMIT;
  const list = useMemo(
    () => buildRows(apps, filter, (name) => expandedOverrides.get(name) ?? expandAll ?? automatic),
    [apps, filter, automatic, toggles],
  );
  const totals = useMemo(() => statusTotals(apps), [apps]);
  const tags = useMemo(() => tagOptions(apps), [apps]);

  const toggle = (name: string, expanded: boolean) => {
    expandedOverrides.set(name, !expanded);
    setToggles((n) => n + 1);
  };
  const setAll = (expanded: boolean) => {
    expandAll = expanded;
    expandedOverrides.clear();
    setToggles((n) => n + 1);
  };
  const [refreshed, setRefreshed] = useState<string | null>(null);
  const permissions = usePermissions();
  const refresh = () => post('/applications').then(() => setRefreshed('Refresh requested: every instance is checked again'), (failure: unknown) => setRefreshed(`Refresh failed: ${messageOf(failure)}`));
  const toggleStatus = (status: string) => setFilter((current) => ({
    ...current,
    statuses: toggled(current.statuses, status),
  }));

  return (
    <section class="page applications">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Filter by name, URL, tag…" title="Filter by name, URL, id, version or tag" aria-label="Filter applications"
          value={filter.text} onInput={(event) => { const text = (event.currentTarget as HTMLInputElement).value; setFilter((current) => ({ ...current, text })); }} />
        <div class="chips" role="group" aria-label="Filter by status">
          {totals.map(([status, count]) => (
            <button type="button" key={status} class={`chip ${statusClass(status)}`} aria-pressed={filter.statuses.includes(status)} onClick={() => toggleStatus(status)}
              title={`Show only ${statusLabel(status)}`}>
              <StatusIcon status={status} /> {statusLabel(status)} <b>{count.toLocaleString()}</b>
            </button>
          ))}
        </div>
        {tags.length > 0 && (
          <select aria-label="Filter by tag" value={filter.tag} onChange={(event) => { const tag = (event.currentTarget as HTMLSelectElement).value; setFilter((current) => ({ ...current, tag })); }}>
            <option value="">All tags</option>
            {tags.map((tag) => <option key={tag} value={tag}>{tag}</option>)}
          </select>
        )}
        <span class="spacer" />
        {anyCollapsed(list.rows)
          ? <button type="button" onClick={() => setAll(true)}>Expand all</button>
          : <button type="button" onClick={() => setAll(false)}>Collapse all</button>}
      </div>
      <p class="summary" role="status" data-testid="summary">
        {store.loaded ? summary(list.instances, total, list.apps, isFiltering(filter)) : 'Loading instances…'}
        {isFiltering(filter) && <button type="button" class="link" onClick={() => setFilter(NO_FILTER)}>Clear filter</button>}
        {permissions.may('applications.refresh') && <button type="button" class="link" onClick={() => void refresh()} title="Check every instance's health and endpoints now (POST /applications)">Refresh</button>}
        {refreshed && <span class="muted"> {refreshed}</span>}
      </p>
      {store.loaded && total === 0 ? <NoInstances /> : (
        <VirtualList items={list.rows} rowHeight={ROW_HEIGHT} keyOf={(row) => row.key} label="Applications and instances"
          render={(row) => <ListRow row={row} onToggle={toggle} overlay={overlay} />} />
      )}
    </section>
  );
}

function ListRow({ row, onToggle, overlay }: { row: Row; onToggle: (name: string, expanded: boolean) => void; overlay: NotifyOverlay }) {
  if (row.kind === 'group') return <div class="row group-row" data-group={row.name} role="heading" aria-level={2}>{row.name}</div>;
  if (row.kind === 'instance') {
    const { instance } = row;
    return (
      <a class="row instance-row" href={href('instances', instance.id)} data-instance={instance.id}>
        <StatusBadge status={instance.statusInfo.status} />
        <span class="label">{labelOf(instance)}</span>
        {instance.registration && activeWindows(overlay, instance.registration.name, instance.id).length > 0 && <MaintenanceTag />}
        <span class="id mono">{instance.id}</span>
        <span class="version">{instance.buildVersion ?? ''}</span>
        <span class="tags">{Object.entries(instance.tags).map(([key, value]) => <span class="tag" key={key}>{key}={value}</span>)}</span>
        <span class="time muted" title="status since">{formatInstant(instance.statusTimestamp)}</span>
      </a>
    );
  }
  const { app, counts, shown, expanded } = row;
  const count = app.instances.length;
  return (
    <div class={`row app-row ${statusClass(app.status)}`} data-app={app.name} onClick={() => onToggle(app.name, expanded)}>
      <button type="button" class="caret" aria-expanded={expanded} aria-label={`${expanded ? 'Hide' : 'Show'} the instances of ${app.name}`}
        onClick={(event) => { event.stopPropagation(); onToggle(app.name, expanded); }}>{expanded ? '▾' : '▸'}</button>
      <StatusBadge status={app.status} />
      <a class="app-name" href={href('applications', app.name)} onClick={(event) => event.stopPropagation()} title={`Open ${app.name}: its instances, loggers and caches`}>{app.name}</a>
      {activeWindows(overlay, app.name).length > 0 && <MaintenanceTag />}
      {shortfallOf(overlay, app.name)?.state === 'degraded' && <span class="tag degraded" title="Fewer instances UP than its fleet expectation requires">degraded</span>}
      <span class="counts">{counts.map(([status, n]) => <StatusBadge key={status} status={status} count={n} />)}</span>
      <span class="version">{app.buildVersion ?? ''}</span>
      <span class="muted instances-count">{shown < count ? `${shown} of ${count} match` : `${count} instance${count === 1 ? '' : 's'}`}</span>
    </div>
  );
}

function MaintenanceTag() {
  return <span class="tag maintenance" title="In a maintenance window: its notifications are held back">maintenance</span>;
}

function NoInstances() {
  const url = `${location.origin}${base}`;
  return (
    <div class="empty">
      <h2>No instances registered yet</h2>
      <p>Spring Boot Admin clients register on their own: set <code>spring.boot.admin.client.url={url}</code> in the application.</p>
      <p>Any other service can register with <code>POST {url}/instances</code> and a body such as <code>{'{"name":"shop","healthUrl":"http://host:8080/actuator/health"}'}</code>.</p>
    </div>
  );
}

const anyCollapsed = (rows: readonly Row[]): boolean => rows.some((row) => row.kind === 'app' && !row.expanded);

function summary(shown: number, total: number, apps: number, filtering: boolean): string {
  const instances = `${total.toLocaleString()} instance${total === 1 ? '' : 's'}`;
  const applications = `${apps.toLocaleString()} application${apps === 1 ? '' : 's'}`;
  return filtering ? `${shown.toLocaleString()} of ${instances} match, in ${applications}` : `${instances} in ${applications}`;
}

/** Instances per status over every application, worst first; the statuses always offered come first. */
function statusTotals(apps: readonly Application[]): Array<readonly [string, number]> {
  const totals = new Map<string, number>(FILTER_STATUSES.map((status) => [status, 0]));
  for (const app of apps) for (const [status, n] of statusCounts(app)) totals.set(status, (totals.get(status) ?? 0) + n);
  return [...totals].sort(([a], [b]) => compareStatus(a, b));
}
