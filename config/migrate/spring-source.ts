import { parseAllDocuments } from 'yaml';

/** A leaf value of a Spring config: a scalar, or a list of scalars. */
export type SpringScalar = string | number | boolean | null;
export type SpringValue = SpringScalar | readonly SpringScalar[];

/** One property: its key as written (segments; list positions as numbers) and its value. */
export interface SpringEntry {
  readonly segments: readonly (string | number)[];
  readonly value: SpringValue;
}

/** A Spring config read into flat properties, with the profile documents that were left out. */
export interface SpringSource {
  /** By canonical key (`canonicalKey`); later documents override earlier ones, as in Spring. */
  readonly entries: ReadonlyMap<string, SpringEntry>;
  /** Profile expressions of documents not merged (their profile was not active). */
  readonly skippedProfiles: readonly string[];
  readonly activeProfiles: readonly string[];
}

/**
 * Spring's relaxed binding: `status-interval`, `statusInterval`, `status_interval` and
 * `STATUS_INTERVAL` are one property. Its canonical form is lower case without dashes or
 * underscores; list positions are `[n]`.
 */
export function canonicalKey(segments: readonly (string | number)[]): string {
  return segments.map((segment) => (typeof segment === 'number' ? `[${segment}]` : canonicalSegment(segment))).join('.');
}

export function canonicalSegment(segment: string): string {
  return segment.toLowerCase().replace(/[-_]/g, '');
}

/** The kebab-case form Vigil's keys use: `statusInterval` and `STATUS_INTERVAL` give `status-interval`. */
export function kebabSegment(segment: string): string {
  const spaced = /[a-z]/.test(segment) ? segment.replace(/([a-z0-9])([A-Z])/g, '$1-$2') : segment;
  return spaced.replace(/_/g, '-').toLowerCase();
}

/**
 * Reads an `application.yml` (every `---` document) or `application.properties` (`#---`
 * separates documents). Documents activated by a profile (`spring.config.activate.on-profile`,
 * or Boot 2.3's `spring.profiles`) are merged only when that profile is active: named by the
 * file's own `spring.profiles.active` or by `profiles`.
 */
export function readSpringConfig(text: string, fileName: string, profiles: readonly string[] = []): SpringSource {
  const documents = /\.ya?ml$/i.test(fileName) ? yamlDocuments(text) : propertiesDocuments(text);
  const plain = documents.filter((document) => profileOf(document) === undefined);
  const active = new Set(profiles);
  for (const document of plain) for (const name of listOf(document.get('spring.profiles.active')?.value)) active.add(String(name));
  const entries = new Map<string, SpringEntry>();
  const skippedProfiles: string[] = [];
  for (const document of documents) {
    const expression = profileOf(document);
    if (expression !== undefined && !profileMatches(expression, active)) {
      skippedProfiles.push(expression);
      continue;
    }
    for (const [key, entry] of document) {
      if (key === 'spring.config.activate.onprofile' || key === 'spring.profiles') continue;
      entries.set(key, entry);
    }
  }
  return { entries, skippedProfiles, activeProfiles: [...active] };
}

/** A comma-separated string or a list, as Spring binds a list property from either. */
export function listOf(value: SpringValue | undefined): SpringScalar[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return [...value];
  if (typeof value === 'string') return value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  return [value as SpringScalar];
}

type Document = Map<string, SpringEntry>;

function profileOf(document: Document): string | undefined {
  const modern = document.get('spring.config.activate.onprofile')?.value;
  const legacy = document.get('spring.profiles')?.value;
  const value = modern ?? legacy;
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** `prod`, `prod,eu` (any of them), `!dev`; `&` and `|` as Spring 5.1 profile expressions. */
function profileMatches(expression: string, active: ReadonlySet<string>): boolean {
  return expression.split(/[,|]/).some((alternative) => alternative.split('&').every((term) => {
    const name = term.trim().replace(/^\(|\)$/g, '');
    return name.startsWith('!') ? !active.has(name.slice(1).trim()) : active.has(name);
  }));
}

function yamlDocuments(text: string): Document[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) {
      const [error] = document.errors;
      throw new Error(`YAML: ${error!.message.split('\n')[0]}`);
    }
    const entries: Document = new Map();
    flatten(document.toJS() as unknown, [], entries);
    return entries.size > 0 ? [entries] : [];
  });
}

function flatten(value: unknown, segments: (string | number)[], into: Document): void {
  if (Array.isArray(value)) {
    if (value.every((item) => item === null || typeof item !== 'object')) {
      put(into, segments, value as SpringScalar[]);
      return;
    }
    value.forEach((item, index) => flatten(item, [...segments, index], into));
    return;
  }
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, item] of Object.entries(value)) flatten(item, [...segments, ...splitKey(key)], into);
    return;
  }
  if (segments.length === 0) return;
  put(into, segments, value instanceof Date ? value.toISOString() : (value as SpringScalar));
}

function put(into: Document, segments: readonly (string | number)[], value: SpringValue): void {
  into.set(canonicalKey(segments), { segments, value });
}

function propertiesDocuments(text: string): Document[] {
  const documents: Document[] = [];
  let current: Document = new Map();
  // Lists written as `key[0]=a`, `key[1]=b` are gathered per document, then stored whole.
  let lists = new Map<string, { segments: (string | number)[]; items: SpringScalar[] }>();
  const close = () => {
    for (const { segments, items } of lists.values()) put(current, segments, items.filter((item) => item !== undefined));
    if (current.size > 0) documents.push(current);
    current = new Map();
    lists = new Map();
  };
  for (const line of logicalLines(text)) {
    if (/^[#!]---\s*$/.test(line)) {
      close();
      continue;
    }
    const trimmed = line.replace(/^\s+/, '');
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const [rawKey, rawValue] = splitProperty(trimmed);
    const segments = splitKey(unescape(rawKey));
    const value = unescape(rawValue);
    const last = segments.at(-1);
    if (typeof last === 'number' && segments.length > 1) {
      const base = segments.slice(0, -1);
      const key = canonicalKey(base);
      const list = lists.get(key) ?? { segments: base, items: [] };
      list.items[last] = value;
      lists.set(key, list);
    } else {
      put(current, segments, value);
    }
  }
  close();
  return documents;
}

/** Lines joined where one ends in an odd number of backslashes (a continuation). */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = pending === '' ? raw : raw.replace(/^\s+/, '');
    const backslashes = /\\*$/.exec(line)![0].length;
    if (backslashes % 2 === 1) {
      pending += line.slice(0, -1);
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  if (pending !== '') lines.push(pending);
  return lines;
}

/** `key=value`, `key: value` or `key value`; the first unescaped separator ends the key. */
function splitProperty(line: string): [string, string] {
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index]!;
    if (char === '\\') {
      index += 1;
      continue;
    }
    if (char === '=' || char === ':' || /\s/.test(char)) {
      let rest = line.slice(index + 1);
      if (/\s/.test(char)) rest = rest.replace(/^\s*[=:]?/, '');
      return [line.slice(0, index), rest.replace(/^\s+/, '')];
    }
  }
  return [line, ''];
}

function unescape(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_whole, code: string) => {
    if (code.length === 5) return String.fromCharCode(parseInt(code.slice(1), 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[code] ?? code;
  });
}

/** `a.b[0].c[my.key]` → `a`, `b`, 0, `c`, `my.key`. */
function splitKey(key: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const match of key.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else segments.push(/^\d+$/.test(match[2]!) ? Number(match[2]) : match[2]!);
  }
  return segments;
}
