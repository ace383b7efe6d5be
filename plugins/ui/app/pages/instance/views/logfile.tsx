import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { actuatorPath, apiUrl, messageOf } from '../../../api';
import { formatValue } from '../../../format';
import { usePoll } from '../../../use-poll';
import type { InstanceViewProps } from '../view-props';
import { LogTail } from './log-tail';

const ROW = 20;
/** SBA's poll timer for the log file. */
const FOLLOW_MS = 1000;

/**
 * The instance's log file, from its end: read in 256 KiB ranges (never whole), earlier parts on
 * demand, new lines every second while following. Search marks matches and steps through them,
 * or shows only the matching lines; Download saves the whole file straight to disk.
 */
export default function LogfileView({ instance }: InstanceViewProps) {
  const tail = useMemo(() => new LogTail(actuatorPath(instance.id, 'logfile')), [instance.id]);
  const [, setVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [following, setFollowing] = useState(true);
  const [query, setQuery] = useState('');
  const [onlyMatches, setOnlyMatches] = useState(false);
  const [current, setCurrent] = useState(0);
  const viewport = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const refresh = () => setVersion(tail.version);

  useEffect(() => {
    const abort = new AbortController();
    tail.loadTail(abort.signal).then(() => { setError(null); refresh(); }, (failure: unknown) => { if (!abort.signal.aborted) setError(`logfile: ${messageOf(failure)}`); })
      .finally(() => setLoading(false));
    return () => abort.abort();
  }, [tail]);
  usePoll(async (signal) => {
    if (loading) return;
    try {
      if (await tail.follow(signal)) refresh();
      setError(null);
    } catch (failure) {
      if (!signal.aborted) setError(`logfile: ${messageOf(failure)}`);
    }
  }, FOLLOW_MS, [tail, loading], following);

  const all = tail.partial ? [...tail.lines, tail.partial] : tail.lines;
  const needle = query.trim().toLowerCase();
  const matches = useMemo(() => {
    if (!needle) return [];
    const found: number[] = [];
    all.forEach((line, index) => { if (line.toLowerCase().includes(needle)) found.push(index); });
    return found;
  }, [tail.version, all.length, needle]);
  const shown = onlyMatches && needle ? matches.map((index) => all[index]!) : all;
  const focus = needle && matches.length > 0 ? (onlyMatches ? Math.min(current, matches.length - 1) : matches[Math.min(current, matches.length - 1)]!) : -1;

  const earlier = async () => {
    const viewportEl = viewport.current;
    const added = await tail.loadEarlier().catch((failure: unknown) => { setError(`logfile: ${messageOf(failure)}`); return 0; });
    refresh();
    // Keep the lines in view where they were: what was added went above them.
    if (viewportEl && added > 0 && !(onlyMatches && needle)) viewportEl.scrollTop += added * ROW;
  };
  const step = (by: number) => {
    if (matches.length === 0) return;
    stick.current = false;
    setCurrent((index) => (Math.min(index, matches.length - 1) + by + matches.length) % matches.length);
  };
  useEffect(() => setCurrent(Math.max(0, matches.length - 1)), [needle]);

  const shownBytes = Math.max(0, tail.end - tail.start);
  return (
    <div class="logfile">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Search the log" aria-label="Search the log" value={query}
          onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)}
          onKeyDown={(event) => { if (event.key === 'Enter') step(event.shiftKey ? -1 : 1); }} />
        {needle && <span class="muted" role="status" data-testid="log-matches">{matches.length === 0 ? 'no match' : `${Math.min(current, matches.length - 1) + 1} of ${matches.length}`}</span>}
        <button type="button" onClick={() => step(-1)} disabled={matches.length === 0} aria-label="Previous match">↑</button>
        <button type="button" onClick={() => step(1)} disabled={matches.length === 0} aria-label="Next match">↓</button>
        <label class="check"><input type="checkbox" checked={onlyMatches} onChange={(event) => setOnlyMatches((event.currentTarget as HTMLInputElement).checked)} /> matching lines only</label>
        <span class="spacer" />
        <label class="check"><input type="checkbox" checked={following} onChange={(event) => { const on = (event.currentTarget as HTMLInputElement).checked; setFollowing(on); stick.current = on; }} /> Follow</label>
        <a class="button" href={apiUrl(actuatorPath(instance.id, 'logfile'))} download={`${instance.registration?.name ?? 'instance'}-${instance.id}.log`}>Download</a>
      </div>
      <p class="muted small" role="status" data-testid="log-window">
        {loading ? 'Reading the end of the log…' : `${all.length.toLocaleString()} lines, ${formatValue(shownBytes, 'bytes')} of ${formatValue(tail.total, 'bytes')}${tail.atStart ? ' (the whole file)' : ''}`}
        {!loading && !tail.atStart && <button type="button" class="link" onClick={() => void earlier()}>Load earlier</button>}
      </p>
      {error && <p class="error" role="alert">{error}</p>}
      <LogLines lines={shown} viewport={viewport} stick={stick} focus={focus} needle={needle} version={tail.version} />
    </div>
  );
}

/** The lines, only those in view drawn; sticks to the bottom while following, until scrolled up. */
function LogLines({ lines, viewport, stick, focus, needle, version }: {
  lines: readonly string[]; viewport: { current: HTMLDivElement | null }; stick: { current: boolean }; focus: number; needle: string; version: number;
}) {
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  useLayoutEffect(() => {
    const element = viewport.current!;
    setHeight(element.clientHeight);
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  useLayoutEffect(() => {
    const element = viewport.current!;
    if (focus >= 0) element.scrollTop = Math.max(0, focus * ROW - element.clientHeight / 2);
    else if (stick.current) element.scrollTop = element.scrollHeight;
    setTop(element.scrollTop);
  }, [version, lines.length, focus]);
  const first = Math.max(0, Math.floor(top / ROW) - 10);
  const last = Math.min(lines.length, Math.ceil((top + height) / ROW) + 10);
  const rows: ComponentChildren[] = [];
  for (let index = first; index < last; index += 1) {
    rows.push(
      <div key={index} class={`log-line${index === focus ? ' focused' : ''}${levelClass(lines[index]!)}`} style={{ transform: `translateY(${index * ROW}px)` }}>
        {highlight(lines[index]!, needle)}
      </div>,
    );
  }
  return (
    <div class="log-lines mono" ref={viewport} role="log" aria-label="Log file" tabIndex={0}
      onScroll={(event) => {
        const element = event.currentTarget as HTMLDivElement;
        setTop(element.scrollTop);
        stick.current = element.scrollTop + element.clientHeight >= element.scrollHeight - ROW;
      }}>
      <div class="log-space" style={{ height: `${lines.length * ROW}px` }}>{rows}</div>
    </div>
  );
}

function highlight(line: string, needle: string): ComponentChildren {
  if (!needle) return line;
  const parts: ComponentChildren[] = [];
  const lower = line.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, from)) {
    parts.push(line.slice(from, at), <mark key={at}>{line.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  parts.push(line.slice(from));
  return parts;
}

/** Colours Logback's default pattern by level, the word after the timestamp. */
function levelClass(line: string): string {
  const level = / (ERROR|WARN|DEBUG|TRACE) /.exec(line.slice(0, 60))?.[1];
  return level ? ` level-${level.toLowerCase()}` : '';
}
