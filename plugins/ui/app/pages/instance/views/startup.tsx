import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, actuatorPath, getJson, messageOf, post } from '../../../api';
import { VirtualList } from '../../../components/virtual-list';
import type { InstanceViewProps } from '../view-props';
import { SearchInput, ViewToolbar, durationMs, formatMs, plural, useSearch } from './shared';

interface Step { readonly name: string; readonly id: number; readonly parentId?: number | null; readonly tags?: readonly { key: string; value: string }[] }
interface StartupEvent { readonly startTime: string; readonly endTime: string; readonly duration?: string; readonly startupStep: Step }
interface StartupBody { readonly springBootVersion?: string; readonly timeline?: { startTime?: string; events?: readonly StartupEvent[] } }
interface Row { readonly key: string; readonly step: Step; readonly depth: number; readonly start: number; readonly ms: number; readonly tags: string }

/**
 * The application's start-up as a timeline (Boot's `startup` endpoint, buffered steps): each
 * step a bar from when it began to when it ended, nested under its parent, searchable, or
 * sorted slowest first to find what made the start slow.
 */
export default function StartupView({ instance }: InstanceViewProps) {
  const [body, setBody] = useState<StartupBody | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    // Boot 3 answers GET with the steps recorded so far; Boot 2 knows only POST (which also drains them).
    getJson<StartupBody>(actuatorPath(instance.id, 'startup'), abort.signal)
      .catch(async (failure: unknown) => {
        if (failure instanceof ApiError && failure.status === 405) return (await post(actuatorPath(instance.id, 'startup'))).json() as Promise<StartupBody>;
        throw failure;
      })
      .then((value) => { setBody(value); setError(null); }, (failure: unknown) => { if (!abort.signal.aborted) setError(`startup: ${messageOf(failure)}`); });
    return () => abort.abort();
  }, [instance.id, round]);
  const { rows, total } = useMemo(() => timelineOf(body), [body]);
  const [slowest, setSlowest] = useState(false);
  const ordered = useMemo(() => (slowest ? [...rows].sort((a, b) => b.ms - a.ms) : rows), [rows, slowest]);
  const [query, setQuery, shown] = useSearch(ordered, (row) => `${row.step.name} ${row.tags}`);
  return (
    <div class="list-view">
      <ViewToolbar count={body ? `${plural(rows.length, 'step')}, ${formatMs(total)} in all${body.springBootVersion ? `, Spring Boot ${body.springBootVersion}` : ''}` : undefined}
        loading={!body && !error} onRefresh={() => setRound((n) => n + 1)}>
        <SearchInput value={query} onInput={setQuery} label="Search steps" placeholder="Step or tag" />
        <label class="check"><input type="checkbox" checked={slowest} onChange={(event) => setSlowest((event.currentTarget as HTMLInputElement).checked)} /> slowest first</label>
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      {body && rows.length === 0 && <p class="muted">No start-up steps were recorded (the application needs a BufferingApplicationStartup).</p>}
      <VirtualList items={shown} rowHeight={30} keyOf={(row) => row.key} label="Start-up steps" render={(row) => (
        <div class="row startup-row" title={`${row.step.name}${row.tags ? `\n${row.tags}` : ''}\n${formatMs(row.ms)}`}>
          <span class="startup-name mono" style={{ paddingLeft: `${slowest || query ? 0 : row.depth * 14}px` }}>{row.step.name}</span>
          <span class="startup-tags muted">{row.tags}</span>
          <span class="startup-lane"><span class="startup-bar" style={{ left: `${(row.start / total) * 100}%`, width: `${Math.max((row.ms / total) * 100, 0.3)}%` }} /></span>
          <span class="num startup-ms">{formatMs(row.ms)}</span>
        </div>
      )} />
    </div>
  );
}

/** Steps in tree order (each after its parent, siblings by start), with depth and offsets in ms from the first start. */
function timelineOf(body: StartupBody | undefined): { rows: Row[]; total: number } {
  const events = body?.timeline?.events ?? [];
  if (events.length === 0) return { rows: [], total: 1 };
  const t0 = Math.min(...events.map((event) => Date.parse(event.startTime)));
  const t1 = Math.max(...events.map((event) => Date.parse(event.endTime)));
  const children = new Map<number | null, StartupEvent[]>();
  const ids = new Set(events.map((event) => event.startupStep.id));
  for (const event of events) {
    const parent = event.startupStep.parentId ?? null;
    const key = parent !== null && ids.has(parent) ? parent : null;
    children.set(key, [...(children.get(key) ?? []), event]);
  }
  const rows: Row[] = [];
  const walk = (parent: number | null, depth: number) => {
    for (const event of (children.get(parent) ?? []).sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime))) {
      const start = Date.parse(event.startTime) - t0;
      const ms = durationMs(event.duration) ?? Date.parse(event.endTime) - Date.parse(event.startTime);
      rows.push({ key: String(event.startupStep.id), step: event.startupStep, depth, start, ms, tags: (event.startupStep.tags ?? []).map((tag) => `${tag.key}=${tag.value}`).join(', ') });
      walk(event.startupStep.id, depth + 1);
    }
  };
  walk(null, 0);
  return { rows, total: Math.max(t1 - t0, 1) };
}
