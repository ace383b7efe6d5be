import * as yup from 'yup';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/;

/** `250ms`, `10s`, `1m`, `1h`, `1d`, or a number of milliseconds; undefined when it is none of those. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = PATTERN.exec(value);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}

/**
 * A yup schema for a duration; the validated value is milliseconds. Exported to plugin authors
 * through `vigil/plugin` so every section reads durations the same way.
 */
export function duration(): yup.NumberSchema<number | undefined> {
  return yup
    .number()
    .transform((_value: unknown, original: unknown) => parseDuration(original) ?? Number.NaN)
    .typeError('${path} must be a duration such as 250ms, 10s, 1m or 1h (got ${originalValue})');
}
