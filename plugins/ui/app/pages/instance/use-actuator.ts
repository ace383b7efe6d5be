import { useCallback, useEffect, useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf } from '../../api';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: string | null;
  readonly loading: boolean;
  readonly reload: () => void;
  /** Replaces the data locally (after a change the server confirmed). */
  readonly update: (change: (data: T) => T) => void;
}

/** One GET of an instance's actuator endpoint through Vigil's proxy, when the view opens (and on reload). */
export function useActuator<T>(id: string, endpoint: string): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setLoading(true);
    getJson<T>(actuatorPath(id, endpoint), abort.signal).then(
      (value) => { setData(value); setError(null); },
      (failure: unknown) => { if (!abort.signal.aborted) setError(`${endpoint}: ${messageOf(failure)}`); },
    ).finally(() => { if (!abort.signal.aborted) setLoading(false); });
    return () => abort.abort();
  }, [id, endpoint, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const update = useCallback((change: (value: T) => T) => setData((value) => (value === undefined ? value : change(value))), []);
  return { data, error, loading, reload, update };
}
