import { useEffect, useRef } from 'preact/hooks';

/**
 * Runs `tick` now and then every `ms` while the component is shown and the tab is visible
 * (a hidden tab asks nothing of the instances); each run gets a signal aborted on unmount.
 * Runs never overlap: a slow instance delays the next one instead of piling requests up.
 */
export function usePoll(tick: (signal: AbortSignal) => Promise<void>, ms: number, deps: readonly unknown[], enabled = true): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!enabled) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      if (!document.hidden) await latest.current(abort.signal).catch(() => undefined);
      if (!abort.signal.aborted) timer = setTimeout(() => void run(), ms);
    };
    void run();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [...deps, ms, enabled]);
}
