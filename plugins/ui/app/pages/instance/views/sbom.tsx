import { useEffect, useMemo, useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf, send } from '../../../api';
import { VirtualTable } from '../../../components/virtual-table';
import type { InstanceViewProps } from '../view-props';
import { SearchInput, ViewToolbar, plural, useSearch } from './shared';

interface Component {
  readonly type?: string;
  readonly group?: string;
  readonly name: string;
  readonly version?: string;
  readonly purl?: string;
  readonly scope?: string;
  readonly licenses?: readonly { license?: { id?: string; name?: string }; expression?: string }[];
}
interface Bom { readonly bomFormat?: string; readonly specVersion?: string; readonly metadata?: { component?: Component; timestamp?: string }; readonly components?: readonly Component[] }

/**
 * The software bill of materials (Boot 3.3's `sbom` endpoint, CycloneDX JSON): every dependency
 * with its version and licences, searchable, per SBOM the instance has.
 */
export default function SbomView({ instance }: InstanceViewProps) {
  const [ids, setIds] = useState<readonly string[]>([]);
  const [picked, setPicked] = useState<string | null>(null);
  const [bom, setBom] = useState<Bom | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<{ ids?: string[] }>(actuatorPath(instance.id, 'sbom')).then(
      (body) => { setIds(body.ids ?? []); setPicked((body.ids ?? [])[0] ?? null); },
      (failure: unknown) => setError(`sbom: ${messageOf(failure)}`),
    );
  }, [instance.id]);
  useEffect(() => {
    if (!picked) return;
    setBom(undefined);
    // An SBOM comes in its own media type (application/vnd.cyclonedx+json), which Boot serves only to an Accept that allows it.
    send('GET', actuatorPath(instance.id, `sbom/${encodeURIComponent(picked)}`), { accept: '*/*' }).then((res) => res.json() as Promise<Bom>).then(
      (value) => { setBom(value); setError(null); },
      (failure: unknown) => setError(`sbom ${picked}: ${messageOf(failure)}`),
    );
  }, [instance.id, picked]);
  const rows = useMemo(() => (bom?.components ?? []).map((component, index) => ({
    ...component, key: `${component.purl ?? `${component.group}:${component.name}`}/${index}`,
    license: (component.licenses ?? []).map((entry) => entry.license?.id ?? entry.license?.name ?? entry.expression ?? '').filter(Boolean).join(', '),
  })), [bom]);
  const [query, setQuery, shown] = useSearch(rows, (row) => `${row.group ?? ''} ${row.name} ${row.version ?? ''} ${row.license} ${row.purl ?? ''}`);
  const subject = bom?.metadata?.component;
  return (
    <div class="list-view">
      <ViewToolbar count={bom ? `${shown.length} of ${plural(rows.length, 'component')}` : undefined} loading={!bom && !error}>
        {ids.length > 1 && (
          <select aria-label="SBOM" value={picked ?? ''} onChange={(event) => setPicked((event.currentTarget as HTMLSelectElement).value)}>
            {ids.map((id) => <option key={id} value={id}>{id}</option>)}
          </select>
        )}
        <SearchInput value={query} onInput={setQuery} label="Search components" placeholder="Group, name, version or licence" />
        {bom && <span class="muted">{bom.bomFormat} {bom.specVersion}{subject ? ` of ${subject.group ? `${subject.group}:` : ''}${subject.name} ${subject.version ?? ''}` : ''}</span>}
      </ViewToolbar>
      {error && <p class="error">{error}</p>}
      <VirtualTable items={shown} keyOf={(row) => row.key} label="Components" columns={[
        { label: 'Group', width: 'minmax(8rem, 1.3fr)', render: (row) => row.group ?? '', className: 'mono muted' },
        { label: 'Name', width: 'minmax(8rem, 1.3fr)', render: (row) => row.name, className: 'mono' },
        { label: 'Version', width: '8rem', render: (row) => row.version ?? '', className: 'mono' },
        { label: 'Licence', width: 'minmax(7rem, 1fr)', render: (row) => row.license },
        { label: 'Type', width: '6rem', render: (row) => row.type ?? '', className: 'muted' },
      ]} />
    </div>
  );
}
