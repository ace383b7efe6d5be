import { useMemo } from 'preact/hooks';
import { formatInstant } from '../../../format';
import { useActuator } from '../use-actuator';
import type { InstanceViewProps } from '../view-props';
import { MigrationsTable, type MigrationBean } from './migrations-table';
import { contextsOf } from './shared';

interface ChangeSet {
  readonly author?: string;
  readonly changeLog?: string;
  readonly comments?: string;
  readonly contexts?: readonly string[];
  readonly dateExecuted?: string;
  readonly deploymentId?: string;
  readonly description?: string;
  readonly execType?: string;
  readonly id?: string;
  readonly labels?: readonly string[];
  readonly checksum?: string;
  readonly orderExecuted?: number;
  readonly tag?: string | null;
}
interface LiquibaseBody { readonly contexts?: Record<string, { readonly liquibaseBeans?: Record<string, { readonly changeSets?: readonly ChangeSet[] }> }> }

/** Liquibase's change sets per Liquibase bean: id, author, change log, how and when executed. */
export default function LiquibaseView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<LiquibaseBody>(instance.id, 'liquibase');
  const beans = useMemo<MigrationBean<ChangeSet>[]>(() => contextsOf(data).flatMap(([context, { liquibaseBeans }]) =>
    Object.entries(liquibaseBeans ?? {}).map(([bean, { changeSets }]) => ({ context, bean, items: changeSets ?? [] }))), [data]);
  return (
    <MigrationsTable beans={beans} noun="change set" loading={loading} error={error} onRefresh={reload}
      keyOf={(item) => `${item.changeLog ?? ''}/${item.id ?? ''}/${item.author ?? ''}`}
      textOf={(item) => `${item.id ?? ''} ${item.author ?? ''} ${item.changeLog ?? ''} ${item.description ?? ''} ${item.execType ?? ''} ${item.tag ?? ''}`}
      stateOf={(item) => item.execType ?? 'UNKNOWN'}
      columns={[
        { label: '#', width: '3.5rem', render: (item) => String(item.orderExecuted ?? ''), className: 'num' },
        { label: 'Id', width: 'minmax(6rem, 1fr)', render: (item) => item.id ?? '', className: 'mono' },
        { label: 'Author', width: '7rem', render: (item) => item.author ?? '' },
        { label: 'Description', width: 'minmax(10rem, 2fr)', render: (item) => item.description ?? '' },
        { label: 'Change log', width: 'minmax(8rem, 1.4fr)', render: (item) => item.changeLog ?? '', className: 'mono muted' },
        { label: 'Executed', width: '8rem', render: (item) => <span class="state">{item.execType}</span> },
        { label: 'When', width: '9rem', render: (item) => (item.dateExecuted ? formatInstant(item.dateExecuted) : '–') },
        { label: 'Tag', width: '5rem', render: (item) => item.tag ?? '', className: 'muted' },
      ]} />
  );
}
