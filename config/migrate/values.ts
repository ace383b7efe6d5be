import { canonicalKey, listOf, type SpringEntry, type SpringScalar, type SpringValue } from './spring-source.js';

/**
 * What one conversion collects: the Vigil config being built (nested objects, in the order keys
 * are first set), a note per converted key worth a comment, and every key that could not be
 * carried over with the reason.
 */
export class Migration {
  readonly config: Record<string, unknown> = {};
  /** Dotted Vigil path → comment placed above that key. */
  readonly notes = new Map<string, string[]>();
  /** Spring key as written → why it was not carried over. */
  readonly unmapped: { key: string; why: string }[] = [];
  /** Keys outside Spring Boot Admin's server settings, left out. */
  readonly ignored: string[] = [];
  readonly plugins: string[] = [];

  constructor(private readonly lookup: (canonical: string) => SpringEntry | undefined) {}

  set(path: readonly string[], value: unknown, note?: string): void {
    let holder = this.config;
    for (const key of path.slice(0, -1)) {
      const next = holder[key];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) holder[key] = {};
      holder = holder[key] as Record<string, unknown>;
    }
    holder[path.at(-1)!] = value;
    if (note) this.note(path, note);
  }

  get(path: readonly string[]): unknown {
    let holder: unknown = this.config;
    for (const key of path) holder = holder !== null && typeof holder === 'object' ? (holder as Record<string, unknown>)[key] : undefined;
    return holder;
  }

  note(path: readonly string[], note: string): void {
    const key = path.join('.');
    this.notes.set(key, [...(this.notes.get(key) ?? []), note]);
  }

  skip(entry: SpringEntry, why: string): void {
    this.unmapped.push({ key: displayKey(entry), why });
  }

  use(plugin: string): void {
    if (!this.plugins.includes(plugin)) this.plugins.push(plugin);
  }

  /** A string value with Spring's `${...}` placeholders turned into Vigil's `${ENV}` form. */
  text(value: SpringScalar, at: readonly string[]): string {
    return convertPlaceholders(String(value), this.lookup, (note) => this.note(at, note));
  }

  /** A list value (a YAML list, indexed properties or a comma-separated string), each item as text. */
  texts(value: SpringValue, at: readonly string[]): string[] {
    return listOf(value).map((item) => this.text(item, at));
  }

  /** A duration: Spring's plain numbers are milliseconds; `ns`/`us` become milliseconds; the rest Vigil reads as written. */
  duration(value: SpringValue, at: readonly string[]): number | string {
    const text = this.text(Array.isArray(value) ? value.join(',') : (value as SpringScalar), at).trim();
    if (/^\d+$/.test(text)) return Number(text);
    const simple = /^(\d+)\s*(ns|us|ms|s|m|h|d)$/i.exec(text);
    if (!simple) return text;
    const unit = simple[2]!.toLowerCase();
    if (unit === 'ns') return Math.ceil(Number(simple[1]) / 1e6);
    if (unit === 'us') return Math.ceil(Number(simple[1]) / 1e3);
    return `${simple[1]}${unit}`;
  }

  number(value: SpringValue, at: readonly string[]): number | string {
    const text = this.text(value as SpringScalar, at).trim();
    return /^\d+$/.test(text) ? Number(text) : text;
  }

  boolean(value: SpringValue, at: readonly string[]): boolean | string {
    const text = this.text(value as SpringScalar, at).trim().toLowerCase();
    return text === 'true' ? true : text === 'false' ? false : text;
  }
}

/** A key as the user wrote it, for comments: `spring.boot.admin.monitor.statusInterval`, `a.b[0]`. */
export function displayKey(entry: SpringEntry): string {
  return entry.segments.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${segment}`)).join('');
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Spring resolves `${name:default}` against every property source: the file itself, system
 * properties and the environment (where `spring.mail.password` is read as SPRING_MAIL_PASSWORD).
 * Vigil reads `${NAME}` and `${NAME:-default}` from the environment only. So a name the file
 * defines is replaced by its value, an environment-style name is kept, and any other name
 * becomes its environment form. `${random.*}` has no counterpart and stays as written.
 */
export function convertPlaceholders(text: string, lookup: (canonical: string) => SpringEntry | undefined, note: (note: string) => void, depth = 0): string {
  let result = '';
  let index = 0;
  while (index < text.length) {
    const start = text.indexOf('${', index);
    if (start < 0) break;
    const end = closingBrace(text, start + 2);
    if (end < 0) break;
    result += text.slice(index, start);
    result += convertOne(text.slice(start + 2, end), lookup, note, depth);
    index = end + 1;
  }
  return result + text.slice(index);
}

function convertOne(inner: string, lookup: (canonical: string) => SpringEntry | undefined, note: (note: string) => void, depth: number): string {
  const colon = topLevelColon(inner);
  const name = (colon < 0 ? inner : inner.slice(0, colon)).trim();
  const fallback = colon < 0 ? undefined : convertPlaceholders(inner.slice(colon + 1), lookup, note, depth + 1);
  if (name.startsWith('random.')) {
    note(`\${${name}} (a random value Spring makes at start-up) has no counterpart in Vigil: replace it`);
    return `\${${inner}}`;
  }
  const own = depth < 8 ? lookup(canonicalKey(name.split('.'))) : undefined;
  if (own && !Array.isArray(own.value) && own.value !== null) {
    return convertPlaceholders(String(own.value), lookup, note, depth + 1);
  }
  let env = name;
  if (!ENV_NAME.test(name)) {
    env = name.replace(/[.-]/g, '_').replace(/[^A-Za-z0-9_]/g, '').toUpperCase();
    note(`\${${name}} is not set in this file; Spring would also read it from the environment as ${env}, which Vigil does`);
  }
  if (fallback === undefined) return `\${${env}}`;
  // Vigil's default ends at the first `}`: a default that holds one cannot be carried.
  if (fallback.includes('}')) {
    note(`the default of \${${name}} holds a nested placeholder, which Vigil cannot read: it is left out`);
    return `\${${env}}`;
  }
  return `\${${env}:-${fallback}}`;
}

function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let index = from; index < text.length; index += 1) {
    if (text.startsWith('${', index)) {
      depth += 1;
      index += 1;
    } else if (text[index] === '}') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

function topLevelColon(inner: string): number {
  let depth = 0;
  for (let index = 0; index < inner.length; index += 1) {
    if (inner.startsWith('${', index)) depth += 1;
    else if (inner[index] === '}') depth -= 1;
    else if (inner[index] === ':' && depth === 0) return index;
  }
  return -1;
}
