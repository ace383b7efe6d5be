import type { InstanceNotification } from './channel.js';
import type { Escape } from './escape.js';

/**
 * Message templates are data (the lesson of SBA's CVE-2022-46166 and CVE-2023-38286, where
 * templates were evaluated): a template is literal text and placeholders, `{{name}}` or SBA's
 * `#{name}`, each naming one field of an allow-list. No expressions, calls, helpers, loops or
 * conditionals exist; anything else is refused when the config is read, naming the key. At send
 * time values come from a fixed projection of the notification into a null-prototype object,
 * each escaped for the channel's format and capped in length.
 */

type Field = (n: InstanceNotification) => string | number | null;

const FIELDS: Readonly<Record<string, Field>> = Object.assign(Object.create(null) as Record<string, Field>, {
  name: (n) => n.instance.name,
  id: (n) => n.instance.id,
  status: (n) => n.to,
  lastStatus: (n) => n.from,
  from: (n) => n.from,
  to: (n) => n.to,
  type: (n) => n.type,
  healthUrl: (n) => n.instance.healthUrl,
  managementUrl: (n) => n.instance.managementUrl,
  serviceUrl: (n) => n.instance.serviceUrl,
  source: (n) => n.instance.source,
  version: (n) => n.version,
  timestamp: (n) => n.timestamp,
  baseUrl: (n) => n.baseUrl,
  // SBA's paths (Teams, PagerDuty and OpsGenie messages), so its messages can be copied unchanged.
  'instance.id': (n) => n.instance.id,
  'instance.registration.name': (n) => n.instance.name,
  'instance.registration.healthUrl': (n) => n.instance.healthUrl,
  'instance.registration.managementUrl': (n) => n.instance.managementUrl,
  'instance.registration.serviceUrl': (n) => n.instance.serviceUrl,
  'instance.registration.source': (n) => n.instance.source,
  'instance.statusInfo.status': (n) => n.to,
  'event.instance': (n) => n.instance.id,
  'event.type': (n) => n.type,
  'event.statusInfo.status': (n) => n.to,
  'event.version': (n) => n.version,
  'event.timestamp': (n) => n.timestamp,
} satisfies Record<string, Field>);

/** The allowed placeholders, for messages and the README. */
export const TEMPLATE_FIELDS: readonly string[] = [...Object.keys(FIELDS), 'metadata.<key>'];

const METADATA = 'metadata.';
const PATH = /^[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_-]+)*$/;
const METADATA_KEY = /^[A-Za-z0-9_.-]+$/;
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
/** A value longer than this is cut (with `…`): a 1 MB instance name must not become a 1 MB message. */
export const MAX_VALUE_LENGTH = 300;

export type TemplatePart = { readonly text: string } | { readonly field: string };

/** A parsed template: literal parts and field names. */
export interface Template {
  readonly source: string;
  readonly parts: readonly TemplatePart[];
}

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** Parses `source`; throws `TemplateError` saying what is wrong with the first bad placeholder. */
export function parseTemplate(source: string): Template {
  const parts: TemplatePart[] = [];
  let text = '';
  let index = 0;
  while (index < source.length) {
    const open = nextOpening(source, index);
    if (!open) {
      text += source.slice(index);
      break;
    }
    text += source.slice(index, open.at);
    const close = source.indexOf(open.close, open.at + open.open.length);
    if (close < 0) throw new TemplateError(`"${clip(source.slice(open.at))}" is not closed with "${open.close}"`);
    const raw = source.slice(open.at, close + open.close.length);
    const field = checkField(source.slice(open.at + open.open.length, close).trim(), raw);
    if (text) parts.push({ text });
    text = '';
    parts.push({ field });
    index = close + open.close.length;
  }
  if (text) parts.push({ text });
  return { source, parts };
}

function nextOpening(source: string, from: number): { at: number; open: string; close: string } | undefined {
  const braces = source.indexOf('{{', from);
  const hash = source.indexOf('#{', from);
  if (braces < 0 && hash < 0) return undefined;
  if (hash < 0 || (braces >= 0 && braces < hash)) return { at: braces, open: '{{', close: '}}' };
  return { at: hash, open: '#{', close: '}' };
}

function checkField(path: string, raw: string): string {
  if (!PATH.test(path)) {
    throw new TemplateError(`"${clip(raw)}" is not a field name: templates take placeholders only, such as {{name}} (no expressions)`);
  }
  if (path.split('.').some((segment) => RESERVED.has(segment))) throw new TemplateError(`"${clip(raw)}" is not allowed`);
  if (path.startsWith(METADATA) && METADATA_KEY.test(path.slice(METADATA.length))) return path;
  if (!Object.hasOwn(FIELDS, path)) throw new TemplateError(`"${clip(raw)}" is not an allowed field (allowed: ${TEMPLATE_FIELDS.join(', ')})`);
  return path;
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** Caps a value at `max` characters. */
export function capText(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, Math.max(0, max - 1))}…` : value;
}

/** The string a field has in `n`: '' for a missing value, capped. */
export function fieldValue(n: InstanceNotification, field: string): string {
  let value: string | number | null | undefined;
  if (field.startsWith(METADATA)) {
    const key = field.slice(METADATA.length);
    value = Object.hasOwn(n.instance.metadata, key) ? n.instance.metadata[key] : undefined;
  } else {
    value = Object.hasOwn(FIELDS, field) ? FIELDS[field]!(n) : undefined;
  }
  return capText(value === null || value === undefined ? '' : String(value), MAX_VALUE_LENGTH);
}

/** Renders `template` for `n`, every value passed through `escape` (the literal text is the operator's own). */
export function renderTemplate(template: Template, n: InstanceNotification, escape: Escape): string {
  let out = '';
  for (const part of template.parts) out += 'text' in part ? part.text : escape(fieldValue(n, part.field));
  return out;
}
