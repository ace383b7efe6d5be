import * as yup from 'yup';
import { duration } from '../../plugin-api.js';

// `exact`, not `noUnknown`: in yup 1.7 `noUnknown` strips unknown keys while casting, so a typo
// in a discovery section would silently switch a filter off.
const unknownKeys = 'unknown key(s): ${properties}';

/** The keys every `discovery-*` section has (CONTRACT §5), validated: durations in ms, `max-removal` a fraction. */
export interface DiscoveryConfig {
  /** How often the source is read again (for watching sources: relisted) even when nothing signalled a change. */
  readonly 'refresh-interval': number;
  /** Longest a source may take to answer one run; past it the run counts as failed. */
  readonly timeout: number;
  /** Service names to take (SBA's simple `*` patterns, case-insensitive); default every one. */
  readonly services: readonly string[];
  readonly 'ignored-services': readonly string[];
  /** An instance is taken only when one of its metadata pairs equals one of these (when any are set). */
  readonly 'instances-metadata': Readonly<Record<string, string>>;
  /** An instance with one of these metadata pairs is left out. */
  readonly 'ignored-instances-metadata': Readonly<Record<string, string>>;
  readonly 'management-context-path': string;
  readonly 'health-endpoint-path': string;
  /** Largest share (0..1) of a source's instances one run may remove before the next run must agree. */
  readonly 'max-removal': number;
}

/** A map of strings to strings (metadata pairs); values given as numbers or booleans become their text. */
export function metadataMap() {
  // yup has no "record of" type: the keys are only known once the value is seen.
  return yup.lazy((map: unknown) => yup.object(
    Object.fromEntries(Object.keys(typeof map === 'object' && map !== null && !Array.isArray(map) ? map : {})
      .map((key) => [key, yup.string().required('${path} must be a string')])),
  ).typeError('${path} must be a mapping of metadata keys to values').default({}));
}

/** `50%` or a fraction `0.5`; stored as the fraction. */
function fraction() {
  return yup.number()
    .transform((_value: unknown, original: unknown) => {
      if (typeof original === 'number') return original;
      const match = typeof original === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(original) : null;
      return match ? Number(match[1]) / 100 : Number.NaN;
    })
    .typeError('${path} must be a percentage such as 50% or a fraction such as 0.5 (got ${originalValue})')
    .min(0, '${path} must be between 0% and 100%')
    .max(1, '${path} must be between 0% and 100% (a number is a fraction: 0.5 means 50%)');
}

const patterns = (fallback: string[]) => yup.array(yup.string().trim().required('${path} must not be empty'))
  .typeError('${path} must be a list of service names or patterns such as "orders-*"')
  .default(fallback);

/** The common keys, with the source's own default refresh interval. */
export function discoveryKeys(refreshInterval: number): yup.ObjectShape {
  return {
    'refresh-interval': duration().min(1).default(refreshInterval),
    timeout: duration().min(1).default(30_000),
    services: patterns(['*']),
    'ignored-services': patterns([]),
    'instances-metadata': metadataMap(),
    'ignored-instances-metadata': metadataMap(),
    'management-context-path': yup.string().default('/actuator'),
    'health-endpoint-path': yup.string().default('health'),
    'max-removal': fraction().default(0.5),
  };
}

/** A source's whole section: the common keys and its own, unknown keys refused. */
export function discoverySchema(own: yup.ObjectShape, refreshInterval: number) {
  return yup.object({ ...discoveryKeys(refreshInterval), ...own }).exact(unknownKeys).default({});
}
