import { useEffect, useState } from 'preact/hooks';
import { permissionsOf, type AccessMe, type Instance, type Permissions } from 'vigil/domain';
import { getJson } from './api';

/**
 * What the signed-in caller may do, from `GET /access/me` (asked once per tab): pages show an
 * action only where the caller may take it. The kernel still decides every request; this only
 * keeps the page from offering what would be refused. Without an authentication plugin the caller
 * is anonymous with `admin` over everything, so every action shows, as before access existed.
 */

/** The caller's permissions, and whether `/access/me` has answered yet. */
export interface PagePermissions extends Permissions {
  readonly known: boolean;
}

/** Until `/access/me` answers, no action shows: a button that vanishes a moment later invites a refused click. */
const NOTHING: PagePermissions = { known: false, may: () => false, mayUseEndpoint: () => false };

/** How long to wait before asking again when `/access/me` could not be read. */
const RETRY_MS = 5000;

let current: PagePermissions = NOTHING;
let version = 0;
let started = false;
const listeners = new Set<() => void>();

function load(): void {
  getJson<AccessMe>('/access/me').then((me) => {
    current = { known: true, ...permissionsOf(me) };
    version += 1;
    // Says the page's actions are final (for tests and tools reading the page).
    document.documentElement.dataset.permissions = 'known';
    for (const listener of listeners) listener();
  }, () => setTimeout(load, RETRY_MS));
}

/** The caller's permissions; re-renders the component once they are known. */
export function usePermissions(): PagePermissions {
  const [, setSeen] = useState(version);
  useEffect(() => {
    if (!started) {
      started = true;
      load();
    }
    const listener = () => setSeen(version);
    listeners.add(listener);
    // Known between the first render and this effect: show it now.
    setSeen(version);
    return () => { listeners.delete(listener); };
  }, []);
  return current;
}

/** The application an instance's permissions are decided by (its registration name). */
export const applicationOf = (instance: Instance): string => instance.registration?.name ?? '';

/** Whether the caller may write to `endpoint` of `instance` through the proxy (a logger level, an eviction, ...). */
export function useMayWrite(instance: Instance, endpoint: string): boolean {
  return usePermissions().mayUseEndpoint(endpoint, true, applicationOf(instance));
}
