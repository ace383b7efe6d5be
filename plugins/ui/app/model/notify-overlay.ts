import { useEffect, useState } from 'preact/hooks';
import { ApiError, getJson } from '../api';
// The server's own glob rule, bundled: the dashboard marks exactly what the server holds back.
import { globMatcher, type MaintenanceWindow } from 'vigil/domain';

export type { MaintenanceWindow } from 'vigil/domain';

/** An application a fleet expectation covers, as `GET /notifications` shows it under `expectations`. */
export interface ExpectationState {
  readonly application: string;
  readonly minUp: number;
  readonly up: number;
  readonly total: number;
  readonly state: 'ok' | 'below' | 'degraded' | 'disappeared';
  readonly since: string | null;
}

/** What the dashboard lays over the registry: windows and expectations (empty without the notify plugin). */
export interface NotifyOverlay {
  readonly loaded: boolean;
  /** The daemon runs `notify`: windows can be made. */
  readonly available: boolean;
  readonly windows: readonly MaintenanceWindow[];
  readonly expectations: readonly ExpectationState[];
}

const REFRESH_MS = 10_000;
let current: NotifyOverlay = { loaded: false, available: false, windows: [], expectations: [] };
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setTimeout> | undefined;
let loading: Promise<void> | undefined;
/** Whether the daemon runs `notify`, asked once per page load: without it there is nothing to ask (and a 404 would be logged). */
let notifying: Promise<boolean> | undefined;

function notifyLoaded(): Promise<boolean> {
  notifying ??= getJson<{ plugins?: { name: string }[] }>('/ui/about')
    .then((about) => (about.plugins ?? []).some((plugin) => plugin.name === 'notify'))
    .catch(() => {
      notifying = undefined;
      return false;
    });
  return notifying;
}

/** A list from the API, or [] when its plugin is not loaded (404). */
async function listOf<T>(path: string, pick: (body: unknown) => T[]): Promise<T[]> {
  try {
    return pick(await getJson<unknown>(path));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return [];
    throw error;
  }
}

/** Reads both lists now; every view using them re-renders. A failed read keeps what was shown. */
export function refreshOverlay(): Promise<void> {
  loading ??= (async () => {
    try {
      if (!(await notifyLoaded())) {
        current = { loaded: true, available: false, windows: [], expectations: [] };
        return;
      }
      const [windows, expectations] = await Promise.all([
        listOf<MaintenanceWindow>('/maintenance', (body) => (Array.isArray(body) ? body as MaintenanceWindow[] : [])),
        listOf<ExpectationState>('/notifications', (body) => (body as { expectations?: ExpectationState[] }).expectations ?? []),
      ]);
      current = { loaded: true, available: true, windows, expectations };
    } catch {
      // Shown again at the next round; the registry's own views say when Vigil cannot be reached.
    } finally {
      loading = undefined;
      for (const listener of listeners) listener();
    }
  })();
  return loading;
}

function schedule(): void {
  clearTimeout(timer);
  timer = setTimeout(() => {
    if (listeners.size === 0) return;
    void (document.hidden ? Promise.resolve() : refreshOverlay()).then(schedule);
  }, REFRESH_MS);
}

/** The overlay, read when the first view asks and every 10 s while one is shown (not while the tab is hidden). */
export function useNotifyOverlay(): NotifyOverlay {
  const [overlay, setOverlay] = useState(current);
  useEffect(() => {
    const listener = () => setOverlay(current);
    listeners.add(listener);
    if (listeners.size === 1) {
      void refreshOverlay();
      schedule();
    }
    setOverlay(current);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) clearTimeout(timer);
    };
  }, []);
  return overlay;
}

// Each window read is a new object: its globs are compiled once, however many rows ask.
const matchers = new WeakMap<MaintenanceWindow, (name: string) => boolean>();

function coversApplication(window: MaintenanceWindow, application: string): boolean {
  let matches = matchers.get(window);
  if (!matches) matchers.set(window, (matches = globMatcher(window.applications)));
  return matches(application);
}

/** The running windows over the application (by name), or also over this instance (by id). */
export function activeWindows(overlay: NotifyOverlay, application: string, instanceId?: string): MaintenanceWindow[] {
  return overlay.windows.filter((window) => window.active
    && (coversApplication(window, application) || (instanceId !== undefined && window.instances.includes(instanceId))));
}

/** The expectation state of an application when it is short (below, degraded or gone), else undefined. */
export function shortfallOf(overlay: NotifyOverlay, application: string): ExpectationState | undefined {
  return overlay.expectations.find((expectation) => expectation.application === application && expectation.state !== 'ok');
}
