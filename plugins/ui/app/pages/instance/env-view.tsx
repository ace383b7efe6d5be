import { useMemo, useState } from 'preact/hooks';
import { EnvManage } from './env-manage';
import { useMayWrite } from '../../permissions';
import { useActuator } from './use-actuator';
import type { InstanceViewProps } from './view-props';

interface Env {
  readonly activeProfiles?: readonly string[];
  readonly propertySources?: ReadonlyArray<{
    readonly name: string;
    readonly properties?: Readonly<Record<string, { readonly value: unknown; readonly origin?: string }>>;
  }>;
}

/** Beyond this many matching properties the list asks for a narrower search instead of growing the page. */
const MAX_SHOWN = 1000;

/** The environment, property source by property source, searchable by key and value. */
export default function EnvView({ instance, endpoints }: InstanceViewProps) {
  const id = instance.id;
  const { data, error, loading, reload } = useActuator<Env>(id, 'env');
  const [query, setQuery] = useState('');
  const mayChange = useMayWrite(instance, 'env');
  const mayRefresh = useMayWrite(instance, 'refresh');
  const sources = useMemo(() => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    let budget = MAX_SHOWN;
    return (data?.propertySources ?? []).map((source) => {
      const properties = Object.entries(source.properties ?? {}).filter(([key, property]) => {
        const text = `${key} ${String(property.value)}`.toLowerCase();
        return words.every((word) => text.includes(word));
      });
      const shown = properties.slice(0, Math.max(budget, 0));
      budget -= shown.length;
      return { name: source.name, properties: shown, matches: properties.length };
    }).filter((source) => source.matches > 0 || words.length === 0);
  }, [data, query]);
  const names = useMemo(() => [...new Set((data?.propertySources ?? []).flatMap((source) => Object.keys(source.properties ?? {})))].sort(), [data]);
  const matches = sources.reduce((sum, source) => sum + source.matches, 0);
  const shown = sources.reduce((sum, source) => sum + source.properties.length, 0);
  return (
    <div class="env">
      <div class="toolbar">
        <input type="search" class="filter" placeholder="Search keys and values" aria-label="Search the environment" value={query}
          onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)} />
        <span class="muted">{loading ? 'Loading…' : `${matches} propert${matches === 1 ? 'y' : 'ies'}`}</span>
        {data?.activeProfiles && data.activeProfiles.length > 0 && <span>profiles: {data.activeProfiles.map((p) => <span class="tag" key={p}>{p}</span>)}</span>}
        <span class="spacer" />
        <button type="button" onClick={reload}>Refresh</button>
      </div>
      {error && <p class="error">{error}</p>}
      {(mayChange || mayRefresh) && <EnvManage id={id} canWrite={mayChange} canRefresh={endpoints.has('refresh') && mayRefresh} names={names} onChanged={reload} />}
      {shown < matches && <p class="muted">Showing the first {shown} of {matches}; refine the search to see the rest.</p>}
      {sources.map((source) => (
        <article class="card" key={source.name}>
          <h2 class="mono">{source.name}</h2>
          {source.properties.length === 0 ? <p class="muted">No properties.</p> : (
            <table class="props">
              <tbody>
                {source.properties.map(([key, property]) => (
                  <tr key={key}>
                    <th class="mono">{key}</th>
                    <td class="mono">{String(property.value)}</td>
                    <td class="muted">{property.origin ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </article>
      ))}
    </div>
  );
}
