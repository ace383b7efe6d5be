import { parseTemplate, TemplateError } from '../../core/kits/notify-channel/template.js';

/**
 * SBA's message templates are SpEL templates: text with `#{expression}` parts evaluated against
 * the event and instance (SBA's own default: `*#{instance.registration.name}* (#{instance.id}) is
 * *#{event.statusInfo.status}*`). Vigil's templates take placeholders only, never expressions,
 * so a part that is one of the properties Vigil has becomes its placeholder, and a template with
 * anything else (an operator, a call, a property Vigil has no field for) is not carried.
 */
const SBA_PROPERTIES: Readonly<Record<string, string>> = {
  'instance.registration.name': 'name',
  'instance.id': 'id',
  'event.instance': 'id',
  'event.statusInfo.status': 'status',
  'instance.statusInfo.status': 'status',
  lastStatus: 'lastStatus',
  'event.type': 'type',
  'event.version': 'version',
  'event.timestamp': 'timestamp',
  'instance.registration.healthUrl': 'healthUrl',
  'instance.registration.managementUrl': 'managementUrl',
  'instance.registration.serviceUrl': 'serviceUrl',
  'instance.registration.source': 'source',
  // The model of SBA's content notifiers (AbstractContentNotifier).
  name: 'name',
  id: 'id',
  status: 'status',
};
const METADATA = /^instance\.registration\.metadata(?:\.([A-Za-z0-9_-]+)|\[\s*'([A-Za-z0-9_.-]+)'\s*\]|\[\s*"([A-Za-z0-9_.-]+)"\s*\])$/;

export type ConvertedTemplate = { readonly ok: true; readonly template: string } | { readonly ok: false; readonly why: string };

export function convertSbaTemplate(source: string): ConvertedTemplate {
  let out = '';
  let index = 0;
  while (index < source.length) {
    const open = source.indexOf('#{', index);
    if (open < 0) {
      out += source.slice(index);
      break;
    }
    const close = closingBrace(source, open + 2);
    if (close < 0) return { ok: false, why: `not carried: "${source.slice(open)}" is not closed with "}"` };
    const expression = source.slice(open + 2, close).trim();
    const field = placeholderFor(expression);
    if (!field) {
      return { ok: false, why: `not carried: the template holds an expression (#{${expression}}), which Vigil's templates do not evaluate; write it with placeholders such as {{name}}, {{id}}, {{status}}` };
    }
    out += `${source.slice(index, open)}{{${field}}}`;
    index = close + 1;
  }
  try {
    parseTemplate(out);
  } catch (error) {
    if (error instanceof TemplateError) return { ok: false, why: `not carried: as a Vigil template, ${error.message}` };
    throw error;
  }
  return { ok: true, template: out };
}

function placeholderFor(expression: string): string | undefined {
  if (Object.hasOwn(SBA_PROPERTIES, expression)) return SBA_PROPERTIES[expression];
  const metadata = METADATA.exec(expression);
  const key = metadata?.[1] ?? metadata?.[2] ?? metadata?.[3];
  return key === undefined ? undefined : `metadata.${key}`;
}

/** The `}` that ends the SpEL part opened before `from`, past nested braces and quoted strings. */
function closingBrace(source: string, from: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = from; i < source.length; i += 1) {
    const char = source[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '{') {
      depth += 1;
    } else if (char === '}') {
      if (depth === 0) return i;
      depth -= 1;
    }
  }
  return -1;
}
