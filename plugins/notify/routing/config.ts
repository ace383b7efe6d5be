import * as yup from 'yup';
import { NOTIFIED_EVENT_TYPES, TARGET_NAME, type NotifiedEventType } from '../../../core/kits/notify-channel/index.js';

const unknownKeys = '${path} has unknown key(s): ${properties}';
/** `notify-slack` (a channel's default target) or `notify-slack:payments`. */
const TARGET_REF = new RegExp(`^[a-z][a-z0-9-]*(:${TARGET_NAME.source.slice(1, -1)})?$`);
const MAX_ROUTES = 1000;

/** One entry of `notify.routes`. Every matcher given must match; a missing one matches everything. */
export interface RouteConfig {
  /** Globs on the application name. */
  readonly applications?: string[];
  /** Metadata (and tags) key → glob on its value; every key must match. */
  readonly metadata?: Record<string, string>;
  readonly types?: NotifiedEventType[];
  /** The new status of an instance's change. */
  readonly statuses?: string[];
  /** Targets: `notify-slack`, `notify-pagerduty:payments`. */
  readonly to: string[];
  /** Go on to the next routes after this one matched. */
  readonly continue: boolean;
}

const globList = (what: string) => yup.array(yup.string().min(1).max(256).required()).min(1, `\${path} must name at least one ${what} (leave the key out to match every one)`).max(100);

export const routesSchema = yup.array(yup.object({
  applications: globList('application').default(undefined),
  metadata: yup.lazy((map: unknown) => yup.object(Object.fromEntries(Object.keys(typeof map === 'object' && map !== null ? map : {}).map((key) => [
    key, yup.string().typeError('${path} must be a glob string').max(256).required(),
  ]))).default(undefined)),
  types: yup.array(yup.string().oneOf([...NOTIFIED_EVENT_TYPES], '${path} must be one of ${values}').required()).min(1).default(undefined),
  statuses: yup.array(yup.string().matches(/^[A-Za-z_]+$/, '${path} must be a status such as DOWN').required()).min(1)
    .transform((value: unknown) => (Array.isArray(value) ? value.map((status) => (typeof status === 'string' ? status.toUpperCase() : status)) : value))
    .default(undefined),
  to: yup.array(yup.string().matches(TARGET_REF, '${path} must name a channel target: notify-slack or notify-slack:payments').required())
    .min(1, '${path} must name at least one target').required('${path} is required: the targets the route sends to'),
  continue: yup.boolean().default(false),
}).exact(unknownKeys)).max(MAX_ROUTES).default(undefined);
