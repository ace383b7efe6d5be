import { useMemo, useState } from 'preact/hooks';
import { actuatorPath, messageOf, post } from '../../../api';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useActuator } from '../use-actuator';
import { useMayWrite } from '../../../permissions';
import type { InstanceViewProps } from '../view-props';
import { SearchInput, ViewToolbar, plural, simpleName, useSearch } from './shared';

interface Route {
  readonly route_id: string;
  readonly uri?: string;
  readonly order?: number;
  readonly predicate?: string;
  readonly filters?: readonly string[];
  readonly route_definition?: { uri?: string; predicates?: readonly { name: string; args?: Record<string, string> }[]; filters?: readonly { name: string; args?: Record<string, string> }[] };
}

/**
 * Spring Cloud Gateway: its routes (id, target, predicate, filters, order), searchable, and its
 * global filters by order; "Refresh routes" re-reads the route definitions, after a confirmation.
 */
export default function GatewayView({ instance }: InstanceViewProps) {
  const routes = useActuator<readonly Route[]>(instance.id, 'gateway/routes');
  const filters = useActuator<Record<string, number | null>>(instance.id, 'gateway/globalfilters');
  const [query, setQuery, shown] = useSearch(routes.data ?? [], (route) => `${route.route_id} ${uriOf(route)} ${route.predicate ?? ''} ${(route.filters ?? []).join(' ')}`);
  const globals = useMemo(() => Object.entries(filters.data ?? {}).sort(([, a], [, b]) => (a ?? 0) - (b ?? 0)), [filters.data]);
  const [asking, setAsking] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const writable = useMayWrite(instance, 'gateway');
  const refresh = async () => {
    setAsking(false);
    try {
      await post(actuatorPath(instance.id, 'gateway/refresh'));
      setOutcome('Routes refreshed');
      routes.reload();
      filters.reload();
    } catch (failure) {
      setOutcome(`Refresh failed: ${messageOf(failure)}`);
    }
  };
  return (
    <div class="list-view">
      <ViewToolbar count={routes.data ? plural(routes.data.length, 'route') : undefined} loading={routes.loading}>
        <SearchInput value={query} onInput={setQuery} label="Search routes" placeholder="Id, URI, predicate or filter" />
        {writable && <button type="button" onClick={() => setAsking(true)}>Refresh routes…</button>}
      </ViewToolbar>
      {routes.error && <p class="error">{routes.error}</p>}
      {outcome && <p class="ok" role="status">{outcome}</p>}
      {shown.length > 0 && (
        <table class="grid-table" aria-label="Routes">
          <thead><tr><th>Route</th><th>URI</th><th>Predicate</th><th>Filters</th><th>Order</th></tr></thead>
          <tbody>
            {shown.map((route) => (
              <tr key={route.route_id} data-route={route.route_id}>
                <td class="mono"><b>{route.route_id}</b></td>
                <td class="mono">{uriOf(route)}</td>
                <td class="mono">{route.predicate ?? (route.route_definition?.predicates ?? []).map(describe).join(' && ')}</td>
                <td class="mono">{(route.filters ?? (route.route_definition?.filters ?? []).map(describe)).map((filter) => <div key={filter}>{filter}</div>)}</td>
                <td class="num">{route.order ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <article class="card" aria-label="Global filters">
        <h2>Global filters</h2>
        {filters.error && <p class="error">{filters.error}</p>}
        <table class="grid-table">
          <thead><tr><th>Filter</th><th>Order</th></tr></thead>
          <tbody>{globals.map(([name, order]) => <tr key={name}><td class="mono" title={name}>{simpleName(name.replace(/@[0-9a-f]+$/, ''))}</td><td class="num">{order ?? ''}</td></tr>)}</tbody>
        </table>
      </article>
      {asking && (
        <ConfirmDialog title="Refresh the gateway's routes?" message={`${instance.registration?.name ?? ''} (${instance.id}) reloads its route definitions; routes changed since start take effect.`}
          confirmLabel="Refresh" onConfirm={() => void refresh()} onCancel={() => setAsking(false)} />
      )}
    </div>
  );
}

const uriOf = (route: Route): string => route.uri ?? route.route_definition?.uri ?? '';
const describe = (part: { name: string; args?: Record<string, string> }): string => `${part.name}(${Object.values(part.args ?? {}).join(', ')})`;
