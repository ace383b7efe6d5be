import * as yup from 'yup';
import { DURATION_META } from './duration-warnings.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/;
/**
 * ISO-8601 as `java.time.Duration.parse` reads it, the form Spring users write in SBA configs:
 * days, then after `T` hours, minutes and seconds (with a fraction), case-insensitive. Negative
 * parts (Java allows `-PT5S`) are not durations a setting can use, so they are refused.
 */
const ISO = /^\s*P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d{1,9}))?S)?)?\s*$/i;

/**
 * `250ms`, `10s`, `1m`, `1h`, `1d`, ISO-8601 (`PT10S`, `PT1M30S`, `P1DT2H`), or a number of
 * milliseconds; undefined when it is none of those.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = PATTERN.exec(value);
  if (match) return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
  return parseIsoDuration(value);
}

function parseIsoDuration(value: string): number | undefined {
  const iso = ISO.exec(value);
  // `P` and `PT` alone match the pattern but name no amount (Java refuses them too).
  if (!iso || iso.slice(1, 5).every((part) => part === undefined) || /T\s*$/i.test(value)) return undefined;
  const [days, hours, minutes, seconds, fraction] = iso.slice(1).map((part) => part ?? '');
  const millis = Number(`0.${fraction}`) * 1000;
  return Math.round(Number(days) * UNITS.d! + Number(hours) * UNITS.h! + Number(minutes) * UNITS.m! + Number(seconds) * UNITS.s! + millis);
}

/**
 * A yup schema for a duration; the validated value is milliseconds. Exported to plugin authors
 * through `vigil/plugin` so every section reads durations the same way.
 */
export function duration(): yup.NumberSchema<number | undefined> {
  return yup
    .number()
    .transform((_value: unknown, original: unknown) => parseDuration(original) ?? Number.NaN)
    .typeError('${path} must be a duration such as 250ms, 10s, 1m, 1h or PT10S (got ${originalValue})')
    // Found by the check that warns about a unit-less value read as milliseconds.
    .meta(DURATION_META);
}
