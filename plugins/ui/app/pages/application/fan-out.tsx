import type { FanOutResult } from 'vigil/domain';
import { href } from '../../router';
import { useStore } from '../../store';
import { labelOf } from '../../model/rows';

/** What an application-wide call did on each instance: a line per instance, its status, and why it failed. */
export function FanOutResults({ title, results }: { title: string; results: readonly FanOutResult[] }) {
  const store = useStore();
  const failed = results.filter((result) => result.status >= 300);
  return (
    <div class={`fan-out ${failed.length > 0 ? 'partial' : 'all-ok'}`} role="status" aria-label={title}>
      <p><b>{title}</b>: {results.length - failed.length} of {results.length} instance{results.length === 1 ? '' : 's'} succeeded</p>
      <ul class="plain-list">
        {results.map((result) => {
          const instance = store.instance(result.instanceId);
          return (
            <li key={result.instanceId} data-instance={result.instanceId}>
              <span class={`http-status status-${String(result.status)[0]}xx`}>{result.status}</span>{' '}
              <a href={href('instances', result.instanceId)}>{instance ? labelOf(instance) : result.instanceId}</a>
              {result.status >= 300 && <span class="muted"> {reasonOf(result)}</span>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function reasonOf(result: FanOutResult): string {
  if (result.status === 404) return 'does not expose this endpoint';
  if (result.status === 502) return 'could not be reached';
  if (result.status === 504) return 'did not answer in time';
  try {
    const body = JSON.parse(result.body ?? '') as { message?: string; error?: string };
    return body.message ?? body.error ?? '';
  } catch {
    return (result.body ?? '').slice(0, 200);
  }
}
