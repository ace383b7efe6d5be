import { useMemo } from 'preact/hooks';
import { formatInstant } from '../../../format';
import { useActuator } from '../use-actuator';
import type { InstanceViewProps } from '../view-props';
import { MigrationsTable, type MigrationBean } from './migrations-table';
import { contextsOf, formatMs } from './shared';

interface Migration {
  readonly type?: string;
  readonly checksum?: number | null;
  readonly version?: string | null;
  readonly description?: string;
  readonly script?: string;
  readonly state?: string;
  readonly installedBy?: string | null;
  readonly installedOn?: string | null;
  readonly installedRank?: number | null;
  readonly executionTime?: number | null;
}
interface FlywayBody { readonly contexts?: Record<string, { readonly flywayBeans?: Record<string, { readonly migrations?: readonly Migration[] }> }> }

/** Flyway's migrations per Flyway bean: version, description, state, when and by whom applied. */
export default function FlywayView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<FlywayBody>(instance.id, 'flyway');
  const beans = useMemo<MigrationBean<Migration>[]>(() => contextsOf(data).flatMap(([context, { flywayBeans }]) =>
    Object.entries(flywayBeans ?? {}).map(([bean, { migrations }]) => ({ context, bean, items: migrations ?? [] }))), [data]);
  return (
    <MigrationsTable beans={beans} noun="migration" loading={loading} error={error} onRefresh={reload}
      keyOf={(item) => `${item.installedRank ?? ''}/${item.version ?? ''}/${item.script ?? ''}`}
      textOf={(item) => `${item.version ?? ''} ${item.description ?? ''} ${item.script ?? ''} ${item.state ?? ''} ${item.installedBy ?? ''}`}
      stateOf={(item) => item.state ?? 'UNKNOWN'}
      columns={[
        { label: 'Version', width: '5.5rem', render: (item) => item.version ?? '(repeatable)', className: 'mono' },
        { label: 'Description', width: 'minmax(10rem, 2fr)', render: (item) => item.description ?? '' },
        { label: 'Type', width: '5rem', render: (item) => item.type ?? '', className: 'muted' },
        { label: 'Script', width: 'minmax(8rem, 1.5fr)', render: (item) => item.script ?? '', className: 'mono muted' },
        { label: 'State', width: '7rem', render: (item) => <span class="state">{item.state}</span> },
        { label: 'Installed', width: '9rem', render: (item) => (item.installedOn ? formatInstant(item.installedOn) : '–') },
        { label: 'By', width: '6rem', render: (item) => item.installedBy ?? '', className: 'muted' },
        { label: 'Took', width: '5.5rem', render: (item) => (typeof item.executionTime === 'number' ? formatMs(item.executionTime) : '–'), className: 'num' },
      ]} />
  );
}
