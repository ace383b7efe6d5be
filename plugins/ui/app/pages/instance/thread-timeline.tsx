import { useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf } from '../../api';
import { VirtualList } from '../../components/virtual-list';
import { usePoll } from '../../use-poll';

interface Sample { readonly t: number; readonly state: string }
interface Track { readonly id: number; readonly name: string; readonly samples: Sample[] }

/** SBA's poll timer for thread dumps; the timeline shows at most the last five minutes. */
const SAMPLE_MS = 1000;
const WINDOW_MS = 5 * 60_000;

/**
 * Thread states over time: a thread dump every second while shown, each thread a lane of
 * coloured segments (runnable, waiting, timed waiting, blocked), so a thread that keeps blocking
 * stands out. Threads that ended keep their lane, greyed after their last sample.
 */
export function ThreadTimeline({ id, query }: { id: string; query: string }) {
  const [tracks, setTracks] = useState<ReadonlyMap<number, Track>>(new Map());
  const [error, setError] = useState<string | null>(null);
  usePoll(async (signal) => {
    try {
      const dump = await getJson<{ threads?: readonly { threadId: number; threadName: string; threadState: string }[] }>(actuatorPath(id, 'threaddump'), signal);
      const t = Date.now();
      setTracks((previous) => {
        const next = new Map(previous);
        for (const thread of dump.threads ?? []) {
          const track = next.get(thread.threadId) ?? { id: thread.threadId, name: thread.threadName, samples: [] };
          next.set(thread.threadId, { ...track, samples: [...track.samples.filter((sample) => sample.t > t - WINDOW_MS), { t, state: thread.threadState }] });
        }
        return next;
      });
      setError(null);
    } catch (failure) {
      if (!signal.aborted) setError(`threaddump: ${messageOf(failure)}`);
    }
  }, SAMPLE_MS, [id]);
  const all = [...tracks.values()];
  const now = Math.max(...all.flatMap((track) => track.samples.map((sample) => sample.t)), 0);
  const t0 = Math.min(...all.flatMap((track) => track.samples.map((sample) => sample.t)), now);
  const span = Math.max(now - t0 + SAMPLE_MS, SAMPLE_MS);
  const shown = all.filter((track) => track.name.toLowerCase().includes(query.toLowerCase())).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div class="thread-timeline">
      {error && <p class="error">{error}</p>}
      <p class="muted small" role="status">{all.length === 0 ? 'Taking the first thread dump…' : `${shown.length} threads, ${Math.round(span / 1000)} s sampled every second`}</p>
      <VirtualList items={shown} rowHeight={26} keyOf={(track) => String(track.id)} label="Thread timeline" render={(track) => {
        const last = track.samples.at(-1);
        return (
          <div class="row timeline-row" data-thread={track.name}>
            <span class="timeline-name" title={track.name}>{track.name}</span>
            <span class={`tag thread-${(last?.state ?? '').toLowerCase()}`}>{last && last.t === now ? last.state : 'ENDED'}</span>
            <span class="timeline-lane">
              {segmentsOf(track.samples).map((segment) => (
                <span key={segment.from} class={`timeline-seg thread-bg-${segment.state.toLowerCase()}`} title={`${segment.state}, ${Math.round((segment.to - segment.from) / 1000)} s`}
                  style={{ left: `${((segment.from - t0) / span) * 100}%`, width: `${((segment.to - segment.from) / span) * 100}%` }} />
              ))}
            </span>
          </div>
        );
      }} />
    </div>
  );
}

/** Runs of one state, each lasting until the next sample (or one interval after the last). */
function segmentsOf(samples: readonly Sample[]): { from: number; to: number; state: string }[] {
  const segments: { from: number; to: number; state: string }[] = [];
  samples.forEach((sample, index) => {
    const to = samples[index + 1]?.t ?? sample.t + SAMPLE_MS;
    const previous = segments.at(-1);
    if (previous && previous.state === sample.state && previous.to === sample.t) previous.to = to;
    else segments.push({ from: sample.t, to, state: sample.state });
  });
  return segments;
}
