import { useEffect, useState } from 'preact/hooks';
import { LiveStore } from './model/live-store';

/** The one store of this tab: one event stream, however many views use it. */
export const store = new LiveStore();

/** Re-renders the component whenever the store changes (at most once per animation frame). */
export function useStore(): LiveStore {
  const [, setVersion] = useState(store.version);
  useEffect(() => {
    const unsubscribe = store.subscribe(() => setVersion(store.version));
    // A change between the first render and this effect (the list may load that fast) would
    // otherwise never be shown: nothing else would come to re-render the page.
    setVersion(store.version);
    return unsubscribe;
  }, []);
  return store;
}
