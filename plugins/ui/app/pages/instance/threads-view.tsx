import { useMemo, useState } from 'preact/hooks';
import { useActuator } from './use-actuator';

interface Frame {
  readonly className?: string;
  readonly methodName?: string;
  readonly fileName?: string | null;
  readonly lineNumber?: number;
}
interface Thread {
  readonly threadName: string;
  readonly threadId: number;
  readonly threadState: string;
  readonly daemon?: boolean;
  readonly lockName?: string | null;
  readonly lockOwnerName?: string | null;
  readonly stackTrace?: readonly Frame[];
}

/** A thread dump taken when the view opens (and on refresh), grouped by state, each stack one click away. */
export function ThreadsView({ id }: { id: string }) {
  const { data, error, loading, reload } = useActuator<{ threads?: readonly Thread[] }>(id, 'threaddump');
  const [query, setQuery] = useState('');
  const threads = data?.threads ?? [];
  const states = useMemo(() => {
    const counts = new Map<string, number>();
    for (const thread of threads) counts.set(thread.threadState, (counts.get(thread.threadState) ?? 0) + 1);
    return [...counts];
  }, [threads]);
  const shown = threads.filter((thread) => `${thread.threadName} ${thread.threadState}`.toLowerCase().includes(query.toLowerCase()));
  return (
    <div class="threads">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Filter by name or state" aria-label="Filter threads" value={query}
          onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)} />
        <span class="muted">{loading ? 'Taking a thread dump…' : `${threads.length} threads`}</span>
        {states.map(([state, count]) => <span key={state} class={`tag thread-${state.toLowerCase()}`}>{state} {count}</span>)}
        <span class="spacer" />
        <button type="button" onClick={reload}>Take again</button>
      </div>
      {error && <p class="error">{error}</p>}
      <ul class="thread-list">
        {shown.map((thread) => (
          <li key={thread.threadId}>
            <details>
              <summary>
                <span class={`tag thread-${thread.threadState.toLowerCase()}`}>{thread.threadState}</span>
                <b>{thread.threadName}</b> <span class="muted">#{thread.threadId}{thread.daemon ? ' daemon' : ''}</span>
                {thread.lockName && <span class="muted"> waiting on {thread.lockName}{thread.lockOwnerName ? ` held by ${thread.lockOwnerName}` : ''}</span>}
              </summary>
              <pre class="stack">{(thread.stackTrace ?? []).map(frameText).join('\n') || '(no stack)'}</pre>
            </details>
          </li>
        ))}
      </ul>
    </div>
  );
}

function frameText(frame: Frame): string {
  const where = frame.fileName ? `${frame.fileName}${frame.lineNumber !== undefined && frame.lineNumber >= 0 ? `:${frame.lineNumber}` : ''}` : 'Unknown Source';
  return `at ${frame.className ?? '?'}.${frame.methodName ?? '?'}(${where})`;
}
