import type { Loader } from '../../components/lazy';
import type { InstanceViewProps } from './view-props';

export interface ViewSpec {
  readonly id: string;
  readonly label: string;
  readonly group: string;
  /** Shown when the instance exposes any of these endpoints (detected, read through the proxy). */
  readonly needs: readonly string[];
  /** Read with POST (Jolokia): shown only to a caller who may write to its endpoint. */
  readonly writes?: boolean;
  readonly load: Loader<InstanceViewProps>;
}

/**
 * Every instance view, grouped as Spring Boot Admin groups them. Each is its own file, fetched
 * the first time it is opened. A view shows only when the instance exposes its endpoint.
 */
export const VIEWS: readonly ViewSpec[] = [
  { id: 'details', label: 'Details', group: 'Insights', needs: ['metrics'], load: () => import('./views/details') },
  { id: 'metrics', label: 'Metrics', group: 'Insights', needs: ['metrics'], load: () => import('./metrics-view') },
  { id: 'env', label: 'Environment', group: 'Insights', needs: ['env'], load: () => import('./env-view') },
  { id: 'beans', label: 'Beans', group: 'Insights', needs: ['beans'], load: () => import('./views/beans') },
  { id: 'configprops', label: 'Configuration properties', group: 'Insights', needs: ['configprops'], load: () => import('./views/configprops') },
  { id: 'conditions', label: 'Conditions', group: 'Insights', needs: ['conditions'], load: () => import('./views/conditions') },
  { id: 'scheduledtasks', label: 'Scheduled tasks', group: 'Insights', needs: ['scheduledtasks'], load: () => import('./views/scheduled-tasks') },
  { id: 'logfile', label: 'Log file', group: 'Logging', needs: ['logfile'], load: () => import('./views/logfile') },
  { id: 'loggers', label: 'Loggers', group: 'Logging', needs: ['loggers'], load: () => import('./loggers-view') },
  { id: 'threads', label: 'Thread dump', group: 'JVM', needs: ['threaddump'], load: () => import('./threads-view') },
  { id: 'jmx', label: 'JMX', group: 'JVM', needs: ['jolokia'], writes: true, load: () => import('./views/jmx') },
  { id: 'mappings', label: 'Mappings', group: 'Web', needs: ['mappings'], load: () => import('./views/mappings') },
  { id: 'httpexchanges', label: 'HTTP exchanges', group: 'Web', needs: ['httpexchanges', 'httptrace'], load: () => import('./views/http-exchanges') },
  { id: 'sessions', label: 'Sessions', group: 'Web', needs: ['sessions'], load: () => import('./views/sessions') },
  { id: 'caches', label: 'Caches', group: 'Data', needs: ['caches'], load: () => import('./views/caches') },
  { id: 'flyway', label: 'Flyway', group: 'Data', needs: ['flyway'], load: () => import('./views/flyway') },
  { id: 'liquibase', label: 'Liquibase', group: 'Data', needs: ['liquibase'], load: () => import('./views/liquibase') },
  { id: 'auditevents', label: 'Audit events', group: 'More', needs: ['auditevents'], load: () => import('./views/audit-events') },
  { id: 'startup', label: 'Startup', group: 'More', needs: ['startup'], load: () => import('./views/startup') },
  { id: 'quartz', label: 'Quartz', group: 'More', needs: ['quartz'], load: () => import('./views/quartz') },
  { id: 'sbom', label: 'SBOM', group: 'More', needs: ['sbom'], load: () => import('./views/sbom') },
  { id: 'gateway', label: 'Gateway', group: 'More', needs: ['gateway'], load: () => import('./views/gateway') },
];

/** The views this instance exposes, in order. */
export function viewsFor(endpoints: ReadonlySet<string>): ViewSpec[] {
  return VIEWS.filter((view) => view.needs.some((endpoint) => endpoints.has(endpoint)));
}
