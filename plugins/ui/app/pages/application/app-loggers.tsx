import { useEffect, useMemo, useState } from 'preact/hooks';
import { applicationActuatorPath, fanOutJson, getJson, messageOf, send } from '../../api';
import type { FanOutResult } from 'vigil/domain';
import { VirtualList } from '../../components/virtual-list';
import { FanOutResults } from './fan-out';
import { usePermissions } from '../../permissions';

interface Loggers { readonly levels?: readonly string[]; readonly loggers?: Record<string, { configuredLevel?: string | null; effectiveLevel?: string | null }> }
interface Row { readonly name: string; readonly effective: readonly string[]; readonly configured: readonly string[]; readonly instances: number }

const DEFAULT_LEVELS = ['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'];

/**
 * Loggers of every instance of an application at once, through the application-wide proxy: each
 * logger with the levels its instances have (one level, or "mixed"); a click sets the level on
 * all of them (for a caller who may), and each instance's answer is shown.
 */
export function ApplicationLoggers({ name }: { name: string }) {
  const [answers, setAnswers] = useState<readonly FanOutResult[] | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [query, setQuery] = useState('');
  const [last, setLast] = useState<{ title: string; results: readonly FanOutResult[] } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const writable = usePermissions().mayUseEndpoint('loggers', true, name);
  useEffect(() => {
    getJson<FanOutResult[]>(applicationActuatorPath(name, 'loggers')).then((value) => { setAnswers(value); setError(null); }, (failure: unknown) => setError(messageOf(failure)));
  }, [name, round]);
  const { rows, levels, reporting } = useMemo(() => {
    const bodies = (answers ?? []).map((answer) => fanOutJson<Loggers>(answer)).filter((body): body is Loggers => body !== undefined);
    const byName = new Map<string, { effective: Set<string>; configured: Set<string>; instances: number }>();
    for (const body of bodies) {
      for (const [logger, { configuredLevel, effectiveLevel }] of Object.entries(body.loggers ?? {})) {
        const entry = byName.get(logger) ?? { effective: new Set<string>(), configured: new Set<string>(), instances: 0 };
        if (effectiveLevel) entry.effective.add(effectiveLevel);
        if (configuredLevel) entry.configured.add(configuredLevel);
        entry.instances += 1;
        byName.set(logger, entry);
      }
    }
    const list: Row[] = [...byName].map(([logger, entry]) => ({ name: logger, effective: [...entry.effective], configured: [...entry.configured], instances: entry.instances }))
      .sort((a, b) => (a.name === 'ROOT' ? -1 : b.name === 'ROOT' ? 1 : a.name.localeCompare(b.name)));
    return { rows: list, levels: bodies[0]?.levels ?? DEFAULT_LEVELS, reporting: bodies.length };
  }, [answers]);
  const shown = useMemo(() => rows.filter((row) => row.name.toLowerCase().includes(query.trim().toLowerCase())), [rows, query]);
  const setLevel = async (logger: string, level: string | null) => {
    setBusy(logger);
    try {
      const res = await send('POST', applicationActuatorPath(name, `loggers/${encodeURIComponent(logger)}`), { json: { configuredLevel: level } });
      setLast({ title: `${logger} set to ${level ?? 'inherit'}`, results: (await res.json()) as FanOutResult[] });
      setRound((n) => n + 1);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div class="loggers">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Search loggers" aria-label="Search loggers" value={query} onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)} />
        <span class="muted" role="status">{answers ? `${rows.length} loggers from ${reporting} of ${answers.length} instances` : 'Loading…'}</span>
        <span class="spacer" />
        <button type="button" onClick={() => setRound((n) => n + 1)}>Refresh</button>
      </div>
      {error && <p class="error">{error}</p>}
      {last && <FanOutResults title={last.title} results={last.results} />}
      <VirtualList items={shown} rowHeight={40} keyOf={(row) => row.name} label="Loggers" render={(row) => {
        const effective = row.effective.length === 1 ? row.effective[0] : undefined;
        const configured = row.configured.length === 1 && row.instances === reporting ? row.configured[0] : undefined;
        return (
          <div class="row logger-row" data-logger={row.name}>
            <span class="mono logger-name" title={row.name}>{row.name}</span>
            {row.effective.length > 1 && <span class="tag" title={row.effective.join(', ')}>mixed</span>}
            {!writable ? <span class="levels read-only"><span class="level effective">{effective ?? '–'}</span></span> : <span class="levels" role="group" aria-label={`Level of ${row.name}`}>
              {levels.map((level) => (
                <button type="button" key={level} disabled={busy === row.name} class={`level${effective === level ? ' effective' : ''}`}
                  aria-pressed={configured === level} onClick={() => void setLevel(row.name, level)}>{level}</button>
              ))}
              <button type="button" class="level reset" disabled={busy === row.name || row.configured.length === 0} onClick={() => void setLevel(row.name, null)}>reset</button>
            </span>}
          </div>
        );
      }} />
    </div>
  );
}
