import { useEffect, useState } from 'preact/hooks';
import { ApiError, apiUrl, getJson, messageOf, post } from '../api';
import { formatInstant } from '../format';
import { href } from '../router';
import { useStore } from '../store';
import type { NotificationChannelStatus, NotificationFilter, NotificationsStatus } from 'vigil/domain';
import { MaintenanceCards } from './maintenance-cards';
import { usePermissions } from '../permissions';

const TTLS: readonly [label: string, ms: number][] = [['5 minutes', 300_000], ['1 hour', 3_600_000], ['1 day', 86_400_000], ['until removed', -1]];
const REFRESH_MS = 5000;

type Loaded<T> = { readonly state: 'loading' } | { readonly state: 'off' } | { readonly state: 'error'; readonly message: string } | { readonly state: 'ok'; readonly value: T };

/** Reads a JSON API; 404 means the plugin (or its filter API) is not loaded. */
async function load<T>(path: string): Promise<Loaded<T>> {
  try {
    return { state: 'ok', value: await getJson<T>(path) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return { state: 'off' };
    return { state: 'error', message: messageOf(error) };
  }
}

/**
 * The notifications page: each channel with its counters and last delivery and failure, the
 * recent deliveries of all channels, and the notification filters with add and remove (as SBA's
 * UI has them). It reads `GET /notifications` and `/notifications/filters` every few seconds.
 */
export function NotificationsPage() {
  const [status, setStatus] = useState<Loaded<NotificationsStatus>>({ state: 'loading' });
  const [filters, setFilters] = useState<Loaded<NotificationFilter[]>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    void Promise.all([load<NotificationsStatus>('/notifications'), load<NotificationFilter[]>('/notifications/filters')]).then(([next, nextFilters]) => {
      if (!live) return;
      setStatus(next);
      setFilters(nextFilters);
    });
    const timer = setTimeout(() => setTick((n) => n + 1), REFRESH_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [tick]);
  const refresh = () => setTick((n) => n + 1);

  if (status.state === 'loading') return <section class="page notifications"><p class="muted">Loading…</p></section>;
  if (status.state === 'off') {
    return (
      <section class="page notifications">
        <div class="empty">
          <h2>Notifications are off</h2>
          <p>Add <code>notify</code> and a channel (<code>notify-slack</code>, <code>notify-mail</code>, <code>notify-webhook</code>, …) to <code>plugins:</code> in the config file.</p>
        </div>
      </section>
    );
  }
  if (status.state === 'error') return <section class="page notifications"><p class="error" role="alert">{status.message}</p></section>;
  const { settings, channels } = status.value;
  return (
    <section class="page notifications">
      <p class="summary" data-testid="notify-settings">
        Hold {duration(settings.hold)} · group window {duration(settings.groupWindow)} ·
        self-preservation {settings.selfPreservation > 0 ? `above ${settings.selfPreservation}%` : 'off'} · reminders {settings.reminderPeriod > 0 ? `every ${duration(settings.reminderPeriod)}` : 'off'}
      </p>
      <Channels channels={channels} />
      <Filters filters={filters} onChange={refresh} />
      <MaintenanceCards />
      <Recent channels={channels} />
    </section>
  );
}

function Channels({ channels }: { channels: readonly NotificationChannelStatus[] }) {
  return (
    <div class="card">
      <h2>Channels</h2>
      {channels.length === 0 ? <p class="muted">No channel is configured.</p> : (
        <table class="props notify-table">
          <thead><tr><th>Channel</th><th>Target</th><th class="num">Delivered</th><th class="num">Failed</th><th class="num">Queued</th><th>Last delivery</th><th>Last failure</th></tr></thead>
          <tbody>
            {channels.map((channel) => (
              <tr key={channel.name} class="channel-row" data-channel={channel.name}>
                <td><b>{channel.name.replace(/^notify-/, '')}</b>{!channel.enabled && <span class="tag">disabled</span>}</td>
                <td class="mono target">{channel.target}</td>
                <td class="num">{channel.delivered.toLocaleString()}</td>
                <td class={`num${channel.failed > 0 ? ' error' : ''}`}>{channel.failed.toLocaleString()}</td>
                <td class="num">{channel.queued.toLocaleString()}</td>
                <td>{channel.lastDelivery ? <><span class="when">{formatInstant(channel.lastDelivery.at)}</span> <span class="muted">{channel.lastDelivery.summary}</span></> : '–'}</td>
                <td>{channel.lastFailure ? <><span class="when">{formatInstant(channel.lastFailure.at)}</span> <span class="error">{channel.lastFailure.reason}</span></> : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Recent({ channels }: { channels: readonly NotificationChannelStatus[] }) {
  const recent = channels.flatMap((channel) => channel.recent.map((record) => ({ channel: channel.name, record })))
    .sort((a, b) => b.record.at.localeCompare(a.record.at)).slice(0, 30);
  return (
    <div class="card">
      <h2>Recent deliveries</h2>
      {recent.length === 0 ? <p class="muted">Nothing was sent yet.</p> : (
        <table class="props notify-table">
          <thead><tr><th>Time</th><th>Channel</th><th>Outcome</th><th>Notification</th><th class="num">Attempts</th></tr></thead>
          <tbody>
            {recent.map(({ channel, record }) => (
              <tr key={`${channel} ${record.id} ${record.at}`} class="delivery-row" data-outcome={record.outcome}>
                <td class="mono when">{formatInstant(record.at)}</td>
                <td>{channel.replace(/^notify-/, '')}</td>
                <td class={`outcome outcome-${record.outcome}`}>{record.outcome}</td>
                <td>{record.summary}{record.reason && <div class="muted">{record.reason}</div>}</td>
                <td class="num">{record.attempts}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function Filters({ filters, onChange }: { filters: Loaded<NotificationFilter[]>; onChange: () => void }) {
  const store = useStore();
  const [kind, setKind] = useState<'instanceId' | 'applicationName'>('applicationName');
  const [target, setTarget] = useState('');
  const [ttl, setTtl] = useState(TTLS[0]![1]);
  const [error, setError] = useState('');
  // Filters hold back notifications of any application: adding or removing one is a role's, not an application's.
  const manage = usePermissions().may('notifications.manage');
  if (filters.state === 'off') return <div class="card"><h2>Filters</h2><p class="muted">The filter API is off (<code>notify.filters-api</code>).</p></div>;
  const add = async (event: Event) => {
    event.preventDefault();
    setError('');
    try {
      const query = new URLSearchParams({ [kind]: target.trim(), ttl: String(ttl) });
      await post(`/notifications/filters?${query}`);
      setTarget('');
      onChange();
    } catch (caught) {
      setError(messageOf(caught));
    }
  };
  const remove = async (id: string) => {
    setError('');
    const res = await fetch(apiUrl(`/notifications/filters/${encodeURIComponent(id)}`), { method: 'DELETE' }).catch(() => undefined);
    if (!res?.ok && res?.status !== 404) setError(res ? `${res.status}: the filter was not removed` : 'Vigil cannot be reached');
    onChange();
  };
  const applications = store.applications();
  return (
    <div class="card">
      <h2>Filters</h2>
      <p class="muted">No notification is sent for a filtered instance or application until the filter expires or is removed.</p>
      {manage && <form class="toolbar filter-form" onSubmit={add}>
        <select aria-label="Filter by" value={kind} onChange={(event) => setKind((event.currentTarget as HTMLSelectElement).value as typeof kind)}>
          <option value="applicationName">Application</option>
          <option value="instanceId">Instance id</option>
        </select>
        <input type="text" list="notify-targets" required aria-label={kind === 'instanceId' ? 'Instance id' : 'Application name'} value={target}
          placeholder={kind === 'instanceId' ? 'Instance id' : 'Application name'} onInput={(event) => setTarget((event.currentTarget as HTMLInputElement).value)} />
        <datalist id="notify-targets">
          {kind === 'applicationName'
            ? applications.map((app) => <option key={app.name} value={app.name} />)
            : applications.flatMap((app) => app.instances.map((instance) => <option key={instance.id} value={instance.id}>{app.name}</option>))}
        </datalist>
        <select aria-label="For" value={String(ttl)} onChange={(event) => setTtl(Number((event.currentTarget as HTMLSelectElement).value))}>
          {TTLS.map(([label, ms]) => <option key={ms} value={String(ms)}>{label}</option>)}
        </select>
        <button type="submit">Add filter</button>
      </form>}
      {error && <p class="error" role="alert">{error}</p>}
      {filters.state === 'error' && <p class="error" role="alert">{filters.message}</p>}
      {filters.state === 'ok' && (filters.value.length === 0 ? <p class="muted">No filter.</p> : (
        <table class="props notify-table">
          <thead><tr><th>Id</th><th>Filtered</th><th>Expires</th><th /></tr></thead>
          <tbody>
            {filters.value.map((filter) => (
              <tr key={filter.id} class="filter-row" data-filter={filter.id}>
                <td class="mono">{filter.id}</td>
                <td>{filter.instanceId !== undefined
                  ? <>instance <a class="mono" href={href('instances', filter.instanceId)}>{filter.instanceId}</a> {store.nameOf(filter.instanceId) && <span class="muted">({store.nameOf(filter.instanceId)})</span>}</>
                  : <>application <b>{filter.applicationName}</b></>}</td>
                <td class="when">{filter.expiry ? formatInstant(filter.expiry) : 'never'}</td>
                <td>{manage && <button type="button" class="danger" onClick={() => void remove(filter.id)}>Remove</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}

function duration(ms: number): string {
  if (ms <= 0) return 'off';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
