import { JsonTree } from '../../components/json-tree';
import { StatusBadge } from '../../components/status';
import { formatInstant, formatValue } from '../../format';
import { visibleEndpoints, type Instance } from 'vigil/domain';
import { RecentActions } from '../audit';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Health, info, registration, metadata and endpoints: all from the live store, no request needed. */
export function Overview({ instance }: { instance: Instance }) {
  const registration = instance.registration!;
  const metadata = Object.entries(registration.metadata);
  return (
    <div class="overview">
      <article class="card health" aria-label="Health">
        <h2>Health</h2>
        <p><StatusBadge status={instance.statusInfo.status} /> <span class="muted">since {formatInstant(instance.statusTimestamp)}</span></p>
        {Object.keys(instance.statusInfo.details).length > 0
          ? <HealthTree details={instance.statusInfo.details} />
          : <p class="muted">No health details.</p>}
      </article>
      <article class="card" aria-label="Info">
        <h2>Info</h2>
        {Object.keys(instance.info).length > 0 ? <JsonTree value={instance.info} /> : <p class="muted">No info yet.</p>}
      </article>
      <article class="card" aria-label="Registration">
        <h2>Registration</h2>
        <dl class="pairs">
          <dt>Name</dt><dd>{registration.name}</dd>
          <dt>Id</dt><dd class="mono">{instance.id}</dd>
          <dt>Service URL</dt><dd>{link(registration.serviceUrl)}</dd>
          <dt>Management URL</dt><dd>{link(registration.managementUrl)}</dd>
          <dt>Health URL</dt><dd>{link(registration.healthUrl)}</dd>
          <dt>Source</dt><dd>{registration.source ?? '–'}</dd>
          <dt>Build version</dt><dd>{instance.buildVersion ?? '–'}</dd>
          <dt>Tags</dt><dd>{Object.entries(instance.tags).map(([key, value]) => <span class="tag" key={key}>{key}={value}</span>)}</dd>
        </dl>
      </article>
      <article class="card" aria-label="Metadata">
        <h2>Metadata</h2>
        {metadata.length > 0 ? (
          <dl class="pairs">{metadata.map(([key, value]) => [<dt key={`k-${key}`}>{key}</dt>, <dd key={`v-${key}`} class="mono">{value}</dd>])}</dl>
        ) : <p class="muted">No metadata.</p>}
      </article>
      <article class="card" aria-label="Endpoints">
        <h2>Endpoints</h2>
        <ul class="endpoints">
          {visibleEndpoints(instance).map((endpoint) => <li key={endpoint.id}><b>{endpoint.id}</b> <span class="muted mono">{endpoint.url}</span></li>)}
        </ul>
      </article>
      <RecentActions instance={instance.id} />
    </div>
  );
}

/** Health components as a tree: each with its status, its own details, and its sub-components. */
function HealthTree({ details }: { details: Readonly<Record<string, unknown>> }) {
  return (
    <ul class="health-tree">
      {Object.entries(details).map(([name, value]) => {
        if (isObject(value) && typeof value.status === 'string') {
          const own = isObject(value.details) ? readable(name, value.details) : undefined;
          const children = isObject(value.components) ? value.components : undefined;
          return (
            <li key={name}>
              <StatusBadge status={value.status} /> <b>{name}</b>
              {own && Object.keys(own).length > 0 && <JsonTree value={own} depth={1} />}
              {children && <HealthTree details={children} />}
            </li>
          );
        }
        return <li key={name}><b>{name}</b>: <JsonTree value={value} depth={1} /></li>;
      })}
    </ul>
  );
}

/** Spring Boot's disk space sizes are bytes: shown as GiB, as people read them (the raw count in a 12-digit number helps no one). */
const DISK_SIZES = ['total', 'free', 'threshold'];

function readable(component: string, details: Record<string, unknown>): Record<string, unknown> {
  if (component !== 'diskSpace') return details;
  return Object.fromEntries(Object.entries(details).map(([key, value]) =>
    [key, DISK_SIZES.includes(key) && typeof value === 'number' ? formatValue(value, 'bytes') : value]));
}

function link(url: string | null) {
  return url ? <a href={url} rel="noreferrer noopener" target="_blank">{url}</a> : '–';
}
