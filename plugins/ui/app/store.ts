import { useEffect, useState } from 'preact/hooks';
import { LiveStore } from './model/live-store';

/** The one store of this tab: one event stream, however many views use it. */
export const store = new LiveStore();

/** Re-renders the component whenever the store changes (at most once per animation frame). */
export function useStore(): LiveStore {
  const [, setVersion] = useState(store.version);
  useEffect(() => store.subscribe(() => setVersion(store.version)), []);
  return store;
}
