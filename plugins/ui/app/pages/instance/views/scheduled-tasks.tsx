import { formatInstant } from '../../../format';
import { useActuator } from '../use-actuator';
import type { InstanceViewProps } from '../view-props';
import { ViewToolbar, formatMs, plural } from './shared';

interface Execution { readonly time?: string; readonly status?: string; readonly exception?: { type?: string; message?: string } }
interface Task {
  readonly runnable?: { target?: string };
  readonly expression?: string;
  readonly initialDelay?: number;
  readonly interval?: number;
  readonly trigger?: string;
  readonly nextExecution?: Execution;
  readonly lastExecution?: Execution;
}
interface Tasks { readonly cron?: readonly Task[]; readonly fixedDelay?: readonly Task[]; readonly fixedRate?: readonly Task[]; readonly custom?: readonly Task[] }

const KINDS: readonly [keyof Tasks, string][] = [['cron', 'Cron'], ['fixedDelay', 'Fixed delay'], ['fixedRate', 'Fixed rate'], ['custom', 'Custom trigger']];

/** Every `@Scheduled` task by kind, with its schedule and, on Boot 3.3+, its last and next run. */
export default function ScheduledTasksView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<Tasks>(instance.id, 'scheduledtasks');
  const total = KINDS.reduce((sum, [kind]) => sum + (data?.[kind]?.length ?? 0), 0);
  return (
    <div class="list-view">
      <ViewToolbar count={plural(total, 'task')} loading={loading} onRefresh={reload} />
      {error && <p class="error">{error}</p>}
      {data && total === 0 && <p class="muted">No scheduled tasks.</p>}
      {KINDS.map(([kind, title]) => {
        const tasks = data?.[kind] ?? [];
        if (tasks.length === 0) return null;
        return (
          <article class="card" key={kind} aria-label={title}>
            <h2>{title}</h2>
            <table class="grid-table">
              <thead><tr><th>Target</th><th>{kind === 'cron' ? 'Expression' : kind === 'custom' ? 'Trigger' : 'Interval'}</th>{kind === 'fixedDelay' || kind === 'fixedRate' ? <th>Initial delay</th> : null}<th>Last run</th><th>Next run</th></tr></thead>
              <tbody>
                {tasks.map((task, index) => (
                  <tr key={index}>
                    <td class="mono">{task.runnable?.target ?? '–'}</td>
                    <td class="mono">{kind === 'cron' ? task.expression : kind === 'custom' ? task.trigger : formatMs(task.interval)}</td>
                    {kind === 'fixedDelay' || kind === 'fixedRate' ? <td>{formatMs(task.initialDelay)}</td> : null}
                    <td>{task.lastExecution?.time ? <>{formatInstant(task.lastExecution.time)} <span class={`tag run-${(task.lastExecution.status ?? '').toLowerCase()}`}>{task.lastExecution.status}</span></> : '–'}
                      {task.lastExecution?.exception && <div class="error">{task.lastExecution.exception.type}: {task.lastExecution.exception.message}</div>}</td>
                    <td>{task.nextExecution?.time ? formatInstant(task.nextExecution.time) : '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </article>
        );
      })}
    </div>
  );
}
