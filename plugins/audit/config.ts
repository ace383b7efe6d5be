import * as yup from 'yup';

// `exact`, not `noUnknown`: in yup 1.7 `noUnknown` strips unknown keys while casting, so a typo would pass silently.
const unknownKeys = 'unknown key(s): ${properties}';

const MIB = 1024 * 1024;

/** A size in bytes: a number, or a string such as `100MiB`, `512KiB`, `1GiB`. */
const size = (fallback: number) => yup.mixed<number | string>()
  .transform((value: unknown) => (typeof value === 'string' ? parseSize(value) ?? value : value))
  .test('size', '${path} must be a size in bytes or with a unit (KiB, MiB, GiB), at least 1KiB', (value) => typeof value === 'number' && Number.isInteger(value) && value >= 1024)
  .default(fallback) as unknown as yup.NumberSchema<number>;

/** The `audit` section (docs/audit.md). */
export const auditSchema = yup.object({
  'max-entries': yup.number().integer().min(1).max(10_000_000).default(100_000),
  file: yup.string().trim().min(1).optional(),
  'max-file-size': size(100 * MIB),
  'max-files': yup.number().integer().min(1).max(1000).default(5),
  'include-registrations': yup.boolean().default(false),
}).exact(unknownKeys).default({});

export interface AuditConfig {
  readonly 'max-entries': number;
  readonly file?: string | undefined;
  readonly 'max-file-size': number;
  readonly 'max-files': number;
  readonly 'include-registrations': boolean;
}

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: MIB, gib: 1024 * MIB, kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3 };

/** `100MiB` → bytes; undefined when it is not a size. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = UNITS[match[2]!.toLowerCase()];
  return unit === undefined ? undefined : Number(match[1]) * unit;
}
