import * as yup from 'yup';
import { parseProbeEntry } from './probe-entry.js';

/** SBA's `spring.boot.admin.probed-endpoints` default, in its order (CONTRACT §2). */
export const DEFAULT_PROBED_ENDPOINTS: readonly string[] = [
  'health', 'env', 'metrics', 'httptrace:trace', 'httptrace', 'threaddump:dump', 'threaddump',
  'jolokia', 'info', 'logfile', 'refresh', 'flyway', 'liquibase', 'heapdump', 'loggers', 'auditevents', 'mappings',
  'scheduledtasks', 'configprops', 'caches', 'beans', 'conditions', 'httpexchanges', 'integrationgraph', 'quartz',
  'sessions', 'shutdown', 'startup', 'prometheus', 'sbom',
];

const entry = yup
  .string()
  .typeError('${path} must be a string such as health or threaddump:dump')
  .required('${path} must not be empty')
  .test('entry', '${path} must be an endpoint id or id:path, such as health or threaddump:dump (got "${value}")',
    (value) => !value || parseProbeEntry(value) !== undefined);

const list = yup
  .array(entry)
  .transform((value: unknown, original: unknown) => (typeof original === 'string' ? original.split(',').map((part) => part.trim()) : value))
  .typeError('${path} must be a list of endpoint ids such as [health, "threaddump:dump"]')
  .required('${path} must be a list of endpoint ids such as [health, "threaddump:dump"]');

/**
 * The `probed-endpoints` key: a list of `id` or `id:path`. A single comma-separated string is
 * accepted as well, as Spring properties and `${ENV}` interpolation produce one. Absent means the
 * default list; that goes through `lazy` because yup 1.7 crashes validating the items of a
 * top-level array default (it indexes the undefined original value); our own list needs no check.
 */
export const probedEndpointsSchema = yup.lazy((value: unknown) =>
  value === undefined ? yup.mixed<string[]>().default(() => [...DEFAULT_PROBED_ENDPOINTS]).defined() : list);
