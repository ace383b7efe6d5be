import { describeSchema, type FieldDescription } from './schema-description.js';

/** Marks a schema as a duration (config/duration.ts), so the check below can find it. */
export const DURATION_META = { vigilDuration: true } as const;

const UNITLESS = /^\s*\d+(\.\d+)?\s*$/;

/**
 * Warnings for durations written without a unit, below 1000, where the key's default is a second
 * or more: `monitor.default-timeout: 5` is read as 5 ms (a number is milliseconds, as in SBA),
 * which is almost surely not what was meant. Valid all the same, so a warning, not a problem.
 */
export function unitlessDurationWarnings(schema: unknown, value: unknown, section: string): string[] {
  const warnings: string[] = [];
  walk(describeSchema(schema, value), value, section, warnings);
  return warnings;
}

function walk(description: FieldDescription | undefined, value: unknown, path: string, warnings: string[]): void {
  if (!description || value === undefined || value === null) return;
  if (description.meta?.vigilDuration === true) {
    const written = typeof value === 'number' ? value : typeof value === 'string' && UNITLESS.test(value) ? Number(value) : undefined;
    const fallback = description.default;
    if (written !== undefined && written > 0 && written < 1000 && typeof fallback === 'number' && fallback >= 1000) {
      const shown = String(value).trim();
      warnings.push(`${path}: ${shown} has no unit, so it was read as ${shown} milliseconds (its default is ${humanDuration(fallback)}); `
        + `write ${shown}s for seconds, or ${shown}ms to keep milliseconds`);
    }
    return;
  }
  if (description.fields && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) walk(description.fields[key], item, path ? `${path}.${key}` : key, warnings);
  } else if (description.innerType && Array.isArray(value)) {
    value.forEach((item, index) => walk(description.innerType, item, `${path}[${index}]`, warnings));
  }
}

/** 10000 → `10s`, 600000 → `10m`, 4500 → `4.5s`: a default as a person would write it. */
function humanDuration(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms / 1000}s`;
}
