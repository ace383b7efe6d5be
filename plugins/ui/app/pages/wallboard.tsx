import { StatusIcon, statusClass, statusLabel } from '../components/status';
import { sortedApps, statusCounts } from '../model/rows';
import { useStore } from '../store';
import { showApplication } from './applications';

/** One tile per application, worst first, coloured and shaped by status: for a screen on the wall. */
export function WallboardPage() {
  const store = useStore();
  const apps = sortedApps(store.applications());
  return (
    <section class="page wallboard">
      <div class="toolbar">
        <p class="summary" role="status">{store.loaded ? `${apps.length} application${apps.length === 1 ? '' : 's'}` : 'Loading…'}</p>
        <span class="spacer" />
        <button type="button" onClick={() => void document.documentElement.requestFullscreen?.()}>Full screen</button>
      </div>
      <div class="tiles">
        {apps.map((app) => (
          <button type="button" key={app.name} class={`tile ${statusClass(app.status)}`} data-app={app.name} onClick={() => showApplication(app.name)}>
            <span class="tile-head"><StatusIcon status={app.status} size={28} /> <span class="tile-status">{statusLabel(app.status)}</span></span>
            <span class="tile-name">{app.name}</span>
            <span class="tile-counts">{statusCounts(app).map(([status, n]) => `${n} ${statusLabel(status)}`).join(' · ')}</span>
            {app.buildVersion && <span class="tile-version">{app.buildVersion}</span>}
          </button>
        ))}
      </div>
    </section>
  );
}
