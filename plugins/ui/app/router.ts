import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routes (`#/journal`, `#/instances/abc/loggers`): the server only ever sees the page at the
 * context root, so the app's paths can never clash with the API's.
 */
export function currentRoute(): string[] {
  return location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The href of an app route, from its segments. */
export function href(...segments: string[]): string {
  return `#/${segments.map(encodeURIComponent).join('/')}`;
}
