import { useState } from 'preact/hooks';
import { actuatorPath, apiUrl, messageOf, post, send } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { applicationOf, usePermissions } from '../../permissions';
import type { Instance } from 'vigil/domain';

type Action = 'restart' | 'shutdown' | 'deregister';

const QUESTIONS: Readonly<Record<Action, { title: string; message: string; label: string }>> = {
  restart: { title: 'Restart this instance?', message: 'The application context restarts; the instance is unavailable meanwhile.', label: 'Restart' },
  shutdown: { title: 'Shut this instance down?', message: 'The application stops, and only whatever started it can start it again.', label: 'Shut down' },
  deregister: { title: 'Deregister this instance?', message: 'Vigil forgets it and stops monitoring it; a Spring Boot Admin client registers again with its next heartbeat.', label: 'Deregister' },
};

/**
 * Heap dump download, restart, shutdown (each shown only when the instance exposes it) and
 * deregistration, each only when the caller may use it; all but the download ask first.
 */
export function Actions({ instance, endpoints }: { instance: Instance; endpoints: ReadonlySet<string> }) {
  const [asking, setAsking] = useState<Action | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const name = instance.registration?.name ?? instance.id;
  const permissions = usePermissions();
  const application = applicationOf(instance);
  const mayWrite = (endpoint: string) => endpoints.has(endpoint) && permissions.mayUseEndpoint(endpoint, true, application);
  const run = async (action: Action) => {
    setAsking(null);
    try {
      if (action === 'deregister') {
        await send('DELETE', `/instances/${encodeURIComponent(instance.id)}`);
        location.hash = '#/';
        return;
      }
      await post(actuatorPath(instance.id, action));
      setOutcome(`${QUESTIONS[action].label} requested`);
    } catch (failure) {
      setOutcome(`${QUESTIONS[action].label} failed: ${messageOf(failure)}`);
    }
  };
  const discovered = instance.registration?.source === 'discovery' ? ' It was found by discovery, which adds it again on its next run while it is still listed there.' : '';
  return (
    <div class="actions">
      {outcome && <span class="muted" role="status">{outcome}</span>}
      {endpoints.has('heapdump') && permissions.mayUseEndpoint('heapdump', false, application) && (
        <a class="button" href={apiUrl(actuatorPath(instance.id, 'heapdump'))} download={`heapdump-${instance.id}.hprof`}>Heap dump</a>
      )}
      {mayWrite('restart') && <button type="button" onClick={() => setAsking('restart')}>Restart…</button>}
      {mayWrite('shutdown') && <button type="button" class="danger" onClick={() => setAsking('shutdown')}>Shut down…</button>}
      {permissions.may('instances.deregister', application) && <button type="button" onClick={() => setAsking('deregister')}>Deregister…</button>}
      {asking && (
        <ConfirmDialog title={QUESTIONS[asking].title} message={`${name} (${instance.id}): ${QUESTIONS[asking].message}${asking === 'deregister' ? discovered : ''}`}
          confirmLabel={QUESTIONS[asking].label} onConfirm={() => void run(asking)} onCancel={() => setAsking(null)} />
      )}
    </div>
  );
}
