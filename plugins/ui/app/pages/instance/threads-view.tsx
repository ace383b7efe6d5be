import { useMemo, useState } from 'preact/hooks';
import { actuatorPath, messageOf, saveBlob, send } from '../../api';
import { ThreadTimeline } from './thread-timeline';
import { useActuator } from './use-actuator';
import type { InstanceViewProps } from './view-props';

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

/**
 * A thread dump taken when the view opens (and on refresh), grouped by state, each stack one
 * click away; or, as a timeline, a dump every second with each thread's state over time. The
 * dump downloads in the JVM's own text format.
 */
export default function ThreadsView({ instance }: InstanceViewProps) {
  const id = instance.id;
  const [timeline, setTimeline] = useState(false);
  const { data, error, loading, reload } = useActuator<{ threads?: readonly Thread[] }>(id, 'threaddump');
  const [query, setQuery] = useState('');
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const download = async () => {
    try {
      // Boot answers `text/plain` with the dump as jstack writes it; an older instance only has JSON.
      const res = await send('GET', actuatorPath(id, 'threaddump'), { accept: 'text/plain, application/json;q=0.5' });
      const json = /json/i.test(res.headers.get('content-type') ?? '');
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      saveBlob(await res.blob(), `threaddump-${instance.registration?.name ?? 'instance'}-${id}-${stamp}.${json ? 'json' : 'txt'}`);
      setDownloadError(null);
    } catch (failure) {
      setDownloadError(`download failed: ${messageOf(failure)}`);
    }
  };
  const threads = data?.threads ?? [];
  const states = useMemo(() => {
    const counts = new Map<string, number>();
    for (const thread of threads) counts.set(thread.threadState, (counts.get(thread.threadState) ?? 0) + 1);
    return [...counts];
  }, [threads]);
  return (
    <div class="threads">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Filter by name or state" aria-label="Filter threads" value={query}
          onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)} />
        <div class="chips" role="group" aria-label="Show">
          <button type="button" class="chip" aria-pressed={!timeline} onClick={() => setTimeline(false)}>Dump</button>
          <button type="button" class="chip" aria-pressed={timeline} onClick={() => setTimeline(true)}>Timeline</button>
        </div>
        {!timeline && <span class="muted">{loading ? 'Taking a thread dump…' : `${threads.length} threads`}</span>}
        {!timeline && states.map(([state, count]) => <span key={state} class={`tag thread-${state.toLowerCase()}`}>{state} {count}</span>)}
        <span class="spacer" />
        <button type="button" onClick={() => void download()}>Download</button>
        {!timeline && <button type="button" onClick={reload}>Take again</button>}
      </div>
      {downloadError && <p class="error" role="alert">{downloadError}</p>}
      {timeline ? <ThreadTimeline id={id} query={query} /> : <ThreadDump threads={threads} query={query} error={error} />}
    </div>
  );
}

function ThreadDump({ threads, query, error }: { threads: readonly Thread[]; query: string; error: string | null }) {
  const shown = threads.filter((thread) => `${thread.threadName} ${thread.threadState}`.toLowerCase().includes(query.toLowerCase()));
  return (
    <>
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
    </>
  );
}

function frameText(frame: Frame): string {
  const where = frame.fileName ? `${frame.fileName}${frame.lineNumber !== undefined && frame.lineNumber >= 0 ? `:${frame.lineNumber}` : ''}` : 'Unknown Source';
  return `at ${frame.className ?? '?'}.${frame.methodName ?? '?'}(${where})`;
}
