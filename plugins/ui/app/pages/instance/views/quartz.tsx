import { useEffect, useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf } from '../../../api';
import { JsonTree } from '../../../components/json-tree';
import { formatInstant } from '../../../format';
import type { InstanceViewProps } from '../view-props';
import { ViewToolbar, formatMs, plural, simpleName } from './shared';

interface JobTrigger { readonly group: string; readonly name: string; readonly previousFireTime?: string | null; readonly nextFireTime?: string | null; readonly priority?: number }
interface Job {
  readonly group: string;
  readonly name: string;
  readonly description?: string | null;
  readonly className?: string;
  readonly durable?: boolean;
  readonly requestRecovery?: boolean;
  readonly data?: Record<string, unknown>;
  readonly triggers?: readonly JobTrigger[];
}
interface TriggerSummary {
  readonly previousFireTime?: string | null;
  readonly nextFireTime?: string | null;
  readonly priority?: number;
  readonly expression?: string;
  readonly timeZone?: string;
  readonly interval?: number;
  readonly timesTriggered?: number;
}
type TriggerKinds = Record<string, Record<string, TriggerSummary>>;
interface TriggerGroups { readonly groups?: Record<string, { readonly paused?: boolean; readonly triggers?: TriggerKinds }> }

/** Beyond this many jobs their details are not fetched one by one: the list says how many there are. */
const MAX_DETAILS = 100;

/** Quartz: every job (with its class, data and triggers) and every trigger by group, with its schedule and fire times. */
export default function QuartzView({ instance }: InstanceViewProps) {
  const [jobs, setJobs] = useState<readonly Job[] | undefined>(undefined);
  const [triggers, setTriggers] = useState<TriggerGroups | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    const path = (sub: string) => actuatorPath(instance.id, `quartz/${sub}`);
    (async () => {
      const [groups, triggerGroups] = await Promise.all([
        getJson<{ groups?: Record<string, { jobs?: readonly string[] }> }>(path('jobs'), abort.signal),
        getJson<TriggerGroups>(path('triggers'), abort.signal),
      ]);
      const names = Object.entries(groups.groups ?? {}).flatMap(([group, { jobs: list }]) => (list ?? []).map((name) => ({ group, name })));
      const details = await Promise.all(names.slice(0, MAX_DETAILS).map(({ group, name }) =>
        getJson<Job>(path(`jobs/${encodeURIComponent(group)}/${encodeURIComponent(name)}`), abort.signal).catch(() => ({ group, name }) as Job)));
      setJobs([...details, ...names.slice(MAX_DETAILS).map((job) => job as Job)]);
      setTriggers(triggerGroups);
      setError(null);
    })().catch((failure: unknown) => { if (!abort.signal.aborted) setError(`quartz: ${messageOf(failure)}`); });
    return () => abort.abort();
  }, [instance.id, round]);
  const triggerRows = Object.entries(triggers?.groups ?? {}).flatMap(([group, { paused, triggers: kinds }]) =>
    Object.entries(kinds ?? {}).flatMap(([kind, byName]) => Object.entries(byName).map(([name, trigger]) => ({ group, paused: paused ?? false, kind, name, trigger }))));
  return (
    <div class="list-view">
      <ViewToolbar count={jobs ? `${plural(jobs.length, 'job')}, ${plural(triggerRows.length, 'trigger')}` : undefined} loading={!jobs && !error} onRefresh={() => setRound((n) => n + 1)} />
      {error && <p class="error">{error}</p>}
      {jobs && (
        <article class="card" aria-label="Jobs">
          <h2>Jobs</h2>
          {jobs.length === 0 ? <p class="muted">No jobs.</p> : (
            <ul class="quartz-jobs">
              {jobs.map((job) => (
                <li key={`${job.group}/${job.name}`}>
                  <details>
                    <summary>
                      <b>{job.group}.{job.name}</b> <span class="mono muted">{job.className ? simpleName(job.className) : ''}</span>
                      {job.description && <span class="muted"> {job.description}</span>}
                      {(job.triggers ?? []).map((trigger) => <span key={trigger.name} class="tag">next {trigger.nextFireTime ? formatInstant(trigger.nextFireTime) : '–'}</span>)}
                    </summary>
                    <dl class="pairs">
                      <dt>Class</dt><dd class="mono">{job.className ?? '–'}</dd>
                      <dt>Durable</dt><dd>{job.durable === undefined ? '–' : job.durable ? 'yes' : 'no'}</dd>
                      <dt>Request recovery</dt><dd>{job.requestRecovery === undefined ? '–' : job.requestRecovery ? 'yes' : 'no'}</dd>
                      <dt>Triggers</dt><dd>{(job.triggers ?? []).map((trigger) => `${trigger.group}.${trigger.name}`).join(', ') || '–'}</dd>
                    </dl>
                    {job.data && Object.keys(job.data).length > 0 && <><h3>Data</h3><JsonTree value={job.data} /></>}
                  </details>
                </li>
              ))}
            </ul>
          )}
        </article>
      )}
      {triggers && (
        <article class="card" aria-label="Triggers">
          <h2>Triggers</h2>
          {triggerRows.length === 0 ? <p class="muted">No triggers.</p> : (
            <table class="grid-table">
              <thead><tr><th>Trigger</th><th>Kind</th><th>Schedule</th><th>Previous fire</th><th>Next fire</th><th>Priority</th></tr></thead>
              <tbody>
                {triggerRows.map(({ group, paused, kind, name, trigger }) => (
                  <tr key={`${group}/${name}`}>
                    <td><b>{group}.{name}</b>{paused && <span class="tag">paused</span>}</td>
                    <td>{kind}</td>
                    <td class="mono">{trigger.expression ? `${trigger.expression}${trigger.timeZone ? ` (${trigger.timeZone})` : ''}` : trigger.interval !== undefined ? `every ${formatMs(trigger.interval)}` : '–'}</td>
                    <td>{trigger.previousFireTime ? formatInstant(trigger.previousFireTime) : '–'}</td>
                    <td>{trigger.nextFireTime ? formatInstant(trigger.nextFireTime) : '–'}</td>
                    <td class="num">{trigger.priority ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </article>
      )}
    </div>
  );
}
