import { useEffect, useState } from 'preact/hooks';
import { actuatorPath, jsonOf, messageOf, send } from '../../api';
import { ConfirmDialog } from '../../components/confirm-dialog';

type Change = { kind: 'set'; name: string; value: string } | { kind: 'reset' } | { kind: 'refresh' };

/**
 * Changing the environment, as Spring Cloud's endpoints allow it: set a property (`POST env`),
 * reset every property set that way (`DELETE env`), and refresh the context so beans pick the
 * changes up (`POST refresh`). Set and reset show only when the instance's `env` endpoint allows
 * POST (asked with OPTIONS, as SBA does) and the caller may write to it (`canWrite`); refresh when
 * it exposes `refresh` and the caller may use it (`canRefresh`). Each asks first.
 */
export function EnvManage({ id, canWrite, canRefresh, names, onChanged }: { id: string; canWrite: boolean; canRefresh: boolean; names: readonly string[]; onChanged: () => void }) {
  const [writable, setWritable] = useState(false);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [asking, setAsking] = useState<Change | null>(null);
  const [outcome, setOutcome] = useState<{ text: string; failed: boolean } | null>(null);
  useEffect(() => {
    if (!canWrite) return;
    send('OPTIONS', actuatorPath(id, 'env')).then(
      (res) => setWritable(/\bPOST\b/i.test(res.headers.get('allow') ?? '')),
      () => setWritable(false),
    );
  }, [id, canWrite]);
  if (!writable && !canRefresh) return null;
  const run = async (change: Change) => {
    setAsking(null);
    try {
      if (change.kind === 'set') {
        await send('POST', actuatorPath(id, 'env'), { json: { name: change.name, value: change.value } });
        setOutcome({ text: `${change.name} set to "${change.value}"${canRefresh ? '; refresh the context for beans to see it' : ''}`, failed: false });
        setName('');
        setValue('');
      } else if (change.kind === 'reset') {
        const reset = await jsonOf<Record<string, unknown>>(await send('DELETE', actuatorPath(id, 'env')));
        const keys = Object.keys(reset ?? {});
        setOutcome({ text: keys.length > 0 ? `Reset: ${keys.join(', ')}` : 'Nothing was set, nothing reset', failed: false });
      } else {
        const changed = await jsonOf<string[]>(await send('POST', actuatorPath(id, 'refresh')));
        setOutcome({ text: changed && changed.length > 0 ? `Context refreshed; changed: ${changed.join(', ')}` : 'Context refreshed; nothing changed', failed: false });
      }
      onChanged();
    } catch (failure) {
      setOutcome({ text: `${change.kind === 'set' ? 'Setting' : change.kind === 'reset' ? 'Resetting' : 'Refreshing'} failed: ${messageOf(failure)}`, failed: true });
    }
  };
  return (
    <article class="card env-manage" aria-label="Change the environment">
      {writable && (
        <form class="toolbar" onSubmit={(event) => { event.preventDefault(); if (name.trim()) setAsking({ kind: 'set', name: name.trim(), value }); }}>
          <input class="mono" list="env-names" placeholder="Property name" aria-label="Property name" value={name} onInput={(event) => setName((event.currentTarget as HTMLInputElement).value)} />
          <datalist id="env-names">{names.slice(0, 2000).map((known) => <option key={known} value={known} />)}</datalist>
          <input class="mono" placeholder="Value" aria-label="Property value" value={value} onInput={(event) => setValue((event.currentTarget as HTMLInputElement).value)} />
          <button type="submit" disabled={!name.trim()}>Set…</button>
          <button type="button" onClick={() => setAsking({ kind: 'reset' })}>Reset…</button>
          {canRefresh && <button type="button" onClick={() => setAsking({ kind: 'refresh' })}>Refresh context…</button>}
        </form>
      )}
      {!writable && canRefresh && <div class="toolbar"><button type="button" onClick={() => setAsking({ kind: 'refresh' })}>Refresh context…</button></div>}
      {outcome && <p class={outcome.failed ? 'error' : 'ok'} role="status">{outcome.text}</p>}
      {asking && (
        <ConfirmDialog
          title={asking.kind === 'set' ? `Set ${asking.name}?` : asking.kind === 'reset' ? 'Reset the properties set here?' : 'Refresh the context?'}
          message={asking.kind === 'set' ? `The instance's ${asking.name} becomes "${asking.value}" until it restarts or is reset.`
            : asking.kind === 'reset' ? 'Every property set through this endpoint goes back to its configured value.'
              : '@RefreshScope beans are rebuilt and @ConfigurationProperties rebound with the current environment.'}
          confirmLabel={asking.kind === 'set' ? 'Set' : asking.kind === 'reset' ? 'Reset' : 'Refresh'}
          onConfirm={() => void run(asking)} onCancel={() => setAsking(null)} />
      )}
    </article>
  );
}
