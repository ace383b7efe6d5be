import { useState } from 'preact/hooks';
import { messageOf, send } from '../api';
import { formatInstant } from '../format';
import { refreshOverlay, useNotifyOverlay, type MaintenanceWindow } from '../model/notify-overlay';
import { href } from '../router';
import { usePermissions } from '../permissions';
import { useStore } from '../store';

/**
 * The notifications page's maintenance windows (running and to come, recurring ones with their
 * schedule) with "End" / "Remove" for those made through the API that the caller may manage, and
 * the applications a fleet expectation finds short.
 */
export function MaintenanceCards() {
  const overlay = useNotifyOverlay();
  const [error, setError] = useState('');
  const permissions = usePermissions();
  const store = useStore();
  // As the server decides it: every application glob of the window within the caller's, and every instance's application.
  const mayManage = (window: MaintenanceWindow) => window.applications.every((glob) => permissions.may('maintenance.manage', glob))
    && window.instances.every((id) => { const application = store.nameOf(id); return application !== undefined && permissions.may('maintenance.manage', application); });
  const end = async (window: MaintenanceWindow) => {
    setError('');
    try {
      await send('DELETE', `/maintenance/${encodeURIComponent(window.id)}`);
    } catch (failure) {
      setError(messageOf(failure));
    }
    await refreshOverlay();
  };
  const short = overlay.expectations.filter((expectation) => expectation.state !== 'ok');
  return (
    <>
      <div class="card">
        <h2>Maintenance windows</h2>
        <p class="muted">Notifications of the applications and instances in a running window are held back; when it ends, each instance whose status then differs from before it is notified once.</p>
        {error && <p class="error" role="alert">{error}</p>}
        {overlay.windows.length === 0 ? <p class="muted">No window is running or planned.</p> : (
          <table class="props notify-table">
            <thead><tr><th>Id</th><th>Covers</th><th>From</th><th>Until</th><th>Reason</th><th>By</th><th /></tr></thead>
            <tbody>
              {overlay.windows.map((window) => (
                <tr key={window.id} class="window-row" data-window={window.id} data-active={String(window.active)}>
                  <td class="mono">{window.id}{window.active && <span class="tag maintenance">running</span>}</td>
                  <td>{[...window.applications.map((glob) => `application ${glob}`), ...window.instances.map((id) => `instance ${id}`)].join(', ')}</td>
                  <td class="when">{formatInstant(window.start)}</td>
                  <td class="when">{formatInstant(window.end)}</td>
                  <td>{window.recurring ? `${window.reason ? `${window.reason}; ` : ''}every "${window.schedule}" (${window.timezone})` : window.reason}</td>
                  <td>{window.createdBy}</td>
                  <td>{!window.recurring && mayManage(window) && <button type="button" class="danger" onClick={() => void end(window)}>{window.active ? 'End' : 'Remove'}</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {overlay.expectations.length > 0 && (
        <div class="card">
          <h2>Fleet expectations</h2>
          {short.length === 0 ? <p class="muted">Every application meets its expectation ({overlay.expectations.length} watched).</p> : (
            <table class="props notify-table">
              <thead><tr><th>Application</th><th>State</th><th class="num">UP</th><th class="num">Required</th><th>Since</th></tr></thead>
              <tbody>
                {short.map((expectation) => (
                  <tr key={expectation.application} class="expectation-row" data-state={expectation.state}>
                    <td><a href={href('applications', expectation.application)}>{expectation.application}</a></td>
                    <td class={expectation.state === 'below' ? '' : 'error'}>{expectation.state}</td>
                    <td class="num">{expectation.up} of {expectation.total}</td>
                    <td class="num">{expectation.minUp}</td>
                    <td class="when">{expectation.since ? formatInstant(expectation.since) : '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </>
  );
}
