import { useMemo, useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf, post } from '../../api';
import { VirtualList } from '../../components/virtual-list';
import { useMayWrite } from '../../permissions';
import { useActuator } from './use-actuator';
import type { InstanceViewProps } from './view-props';

interface Logger {
  readonly configuredLevel?: string | null;
  readonly effectiveLevel?: string | null;
}
interface Loggers {
  readonly levels?: readonly string[];
  readonly loggers?: Readonly<Record<string, Logger>>;
}

const DEFAULT_LEVELS = ['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'];

/** Every logger with its level, searchable; a click sets a level on the instance (POST through the proxy), for a caller who may. */
export default function LoggersView({ instance }: InstanceViewProps) {
  const id = instance.id;
  const { data, error, loading, reload, update } = useActuator<Loggers>(id, 'loggers');
  const [query, setQuery] = useState('');
  const [configuredOnly, setConfiguredOnly] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const writable = useMayWrite(instance, 'loggers');
  const levels = data?.levels ?? DEFAULT_LEVELS;
  const entries = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return Object.entries(data?.loggers ?? {}).filter(([name, logger]) =>
      (!configuredOnly || logger.configuredLevel) && words.every((word) => name.toLowerCase().includes(word)));
  }, [data, query, configuredOnly]);

  const setLevel = async (name: string, level: string | null) => {
    setBusy(name);
    setProblem(null);
    try {
      const path = actuatorPath(id, `loggers/${encodeURIComponent(name)}`);
      await post(path, { configuredLevel: level });
      // Read back what the instance now says: levels of child loggers may follow, but this one is certain.
      let logger: Logger = { configuredLevel: level, effectiveLevel: level ?? undefined };
      try {
        logger = await getJson<Logger>(path);
      } catch {
        // The change itself succeeded; keep what was asked for.
      }
      update((current) => ({ ...current, loggers: { ...current.loggers, [name]: logger } }));
    } catch (failure) {
      setProblem(`${name}: ${messageOf(failure)}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <div class="loggers">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Search loggers" aria-label="Search loggers" value={query}
          onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)} />
        <label class="check"><input type="checkbox" checked={configuredOnly} onChange={(event) => setConfiguredOnly((event.currentTarget as HTMLInputElement).checked)} /> configured only</label>
        <span class="muted">{loading ? 'Loading…' : `${entries.length} logger${entries.length === 1 ? '' : 's'}`}</span>
        <span class="spacer" />
        <button type="button" onClick={reload}>Refresh</button>
      </div>
      {error && <p class="error">{error}</p>}
      {problem && <p class="error" role="alert">{problem}</p>}
      <VirtualList items={entries} rowHeight={40} keyOf={([name]) => name} label="Loggers" render={([name, logger]) => (
        <div class="row logger-row" data-logger={name}>
          <span class="mono logger-name" title={name}>{name}</span>
          {!writable ? <ReadOnlyLevel logger={logger} /> : <span class="levels" role="group" aria-label={`Level of ${name}`}>
            {levels.map((level) => (
              <button type="button" key={level} disabled={busy === name}
                class={`level${logger.effectiveLevel === level ? ' effective' : ''}`}
                aria-pressed={logger.configuredLevel === level}
                onClick={() => void setLevel(name, level)}>{level}</button>
            ))}
            <button type="button" class="level reset" disabled={busy === name || !logger.configuredLevel}
              title="Inherit the level from the parent logger" onClick={() => void setLevel(name, null)}>reset</button>
          </span>}
        </div>
      )} />
    </div>
  );
}

/** A logger's level for a caller who may not change it: what it is, and whether it was set. */
export function ReadOnlyLevel({ logger }: { logger: Logger }) {
  return (
    <span class="levels read-only">
      <span class="level effective">{logger.effectiveLevel ?? '–'}</span>
      {logger.configuredLevel && <span class="muted"> configured</span>}
    </span>
  );
}
