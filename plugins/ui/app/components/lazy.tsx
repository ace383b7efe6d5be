import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api';

export type Loader<P> = () => Promise<{ readonly default: ComponentType<P> }>;

const loaded = new Map<Loader<never>, ComponentType<never>>();

/**
 * A view whose code is fetched the first time it is shown (esbuild splits each `import()` into its
 * own file), so the applications page never pays for the instance views. Once fetched, it renders
 * at once on later visits.
 */
export function Lazy<P extends object>({ load, props }: { load: Loader<P>; props: P }) {
  const [view, setView] = useState<ComponentType<P> | undefined>(() => loaded.get(load as Loader<never>) as ComponentType<P> | undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (view) return;
    let current = true;
    load().then(
      (module) => {
        loaded.set(load as Loader<never>, module.default as ComponentType<never>);
        if (current) setView(() => module.default);
      },
      (failure: unknown) => { if (current) setError(`this view could not be loaded (${messageOf(failure)}); reload the page`); },
    );
    return () => { current = false; };
  }, [load]);
  if (error) return <p class="error" role="alert">{error}</p>;
  if (!view) return <p class="muted">Loading…</p>;
  const View = view;
  return <View {...props} />;
}
