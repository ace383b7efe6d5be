import { useMemo, useState } from 'preact/hooks';
import { VirtualTable } from '../../../components/virtual-table';
import { toggled } from '../../../list-toggle';
import { useActuator } from '../use-actuator';
import type { InstanceViewProps } from '../view-props';
import { DetailPanel, SearchInput, ViewToolbar, contextsOf, plural, simpleName, useSearch } from './shared';

interface Outcome { readonly condition?: string; readonly message?: string }
interface ConditionsContext {
  readonly positiveMatches?: Record<string, readonly Outcome[]>;
  readonly negativeMatches?: Record<string, { readonly notMatched?: readonly Outcome[]; readonly matched?: readonly Outcome[] }>;
  readonly unconditionalClasses?: readonly string[];
}

const KINDS = ['Matched', 'Did not match', 'Unconditional'] as const;
type Kind = (typeof KINDS)[number];
interface Row { readonly key: string; readonly kind: Kind; readonly className: string; readonly condition: string; readonly message: string }

/** The auto-configuration report: what matched, what did not and why, and what applies unconditionally. */
export default function ConditionsView({ instance }: InstanceViewProps) {
  const { data, error, loading, reload } = useActuator<{ contexts?: Record<string, ConditionsContext> }>(instance.id, 'conditions');
  const rows = useMemo(() => {
    const list: Row[] = [];
    for (const [context, report] of contextsOf(data)) {
      const add = (kind: Kind, className: string, outcome: Outcome, index: number) => list.push({
        key: `${context}/${kind}/${className}/${index}`, kind, className, condition: outcome.condition ?? '', message: outcome.message ?? '',
      });
      for (const [className, outcomes] of Object.entries(report.positiveMatches ?? {})) outcomes.forEach((outcome, index) => add('Matched', className, outcome, index));
      for (const [className, { notMatched = [], matched = [] }] of Object.entries(report.negativeMatches ?? {})) {
        notMatched.forEach((outcome, index) => add('Did not match', className, outcome, index));
        // The conditions of a class that did match although the class as a whole did not.
        matched.forEach((outcome, index) => add('Matched', className, outcome, notMatched.length + index));
      }
      (report.unconditionalClasses ?? []).forEach((className, index) => add('Unconditional', className, {}, index));
    }
    return list;
  }, [data]);
  const [kinds, setKinds] = useState<readonly Kind[]>([]);
  const ofKind = useMemo(() => (kinds.length === 0 ? rows : rows.filter((row) => kinds.includes(row.kind))), [rows, kinds]);
  const [query, setQuery, shown] = useSearch(ofKind, (row) => `${row.className} ${row.condition} ${row.message}`);
  const [selected, setSelected] = useState<Row | null>(null);
  const counts = (kind: Kind) => rows.filter((row) => row.kind === kind).length;
  return (
    <div class="list-view">
      <ViewToolbar count={`${shown.length} of ${plural(rows.length, 'condition')}`} loading={loading} onRefresh={reload}>
        <SearchInput value={query} onInput={setQuery} label="Search conditions" placeholder="Class, condition or message" />
        <div class="chips" role="group" aria-label="Outcome">
          {KINDS.map((kind) => (
            <button type="button" key={kind} class="chip" aria-pressed={kinds.includes(kind)} onClick={() => setKinds((current) => toggled(current, kind))}>
              {kind} <b>{counts(kind)}</b>
            </button>
          ))}
        </div>
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      <div class="split">
        <VirtualTable items={shown} keyOf={(row) => row.key} label="Conditions" selected={selected?.key ?? null} onSelect={setSelected}
          rowClass={(row) => `outcome-${row.kind === 'Matched' ? 'matched' : row.kind === 'Did not match' ? 'unmatched' : 'always'}`} columns={[
            { label: 'Outcome', width: '9rem', render: (row) => <span class="outcome">{row.kind}</span> },
            { label: 'Class', width: 'minmax(12rem, 1.4fr)', render: (row) => simpleName(row.className), className: 'mono' },
            { label: 'Condition', width: '12rem', render: (row) => row.condition },
            { label: 'Message', width: 'minmax(12rem, 2.6fr)', render: (row) => row.message, className: 'muted' },
          ]} />
        {selected && (
          <DetailPanel title={simpleName(selected.className)} onClose={() => setSelected(null)}>
            <dl class="pairs">
              <dt>Outcome</dt><dd>{selected.kind}</dd>
              <dt>Class</dt><dd class="mono">{selected.className}</dd>
              <dt>Condition</dt><dd>{selected.condition || '–'}</dd>
              <dt>Message</dt><dd>{selected.message || '–'}</dd>
            </dl>
          </DetailPanel>
        )}
      </div>
    </div>
  );
}
