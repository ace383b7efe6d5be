import type { GroupNotification, InstanceNotification, NotifiedInstanceEventType, SummaryNotification } from './channel.js';
import type { Escape } from './escape.js';
import { MAX_VALUE_LENGTH, capText, renderTemplate, type Template } from './template.js';

/** A channel's message templates, one per instance event type. */
export type MessageTemplates = Readonly<Record<NotifiedInstanceEventType, Template>>;

/** Ids listed per line of a group before "and N more". */
const IDS_PER_LINE = 10;
/** Lines of a group message before "and N more applications". */
export const MAX_GROUP_LINES = 20;

/**
 * The text of one change: its template, marked when it is a reminder, reports the end of a
 * maintenance window, or replaced earlier changes.
 */
export function instanceText(n: InstanceNotification, templates: MessageTemplates, escape: Escape): string {
  let text = renderTemplate(templates[n.type], n, escape);
  if (n.reminder > 0) text = `Reminder: ${text}`;
  if (n.afterMaintenance !== undefined) text += ` after maintenance ${escape(capText(n.afterMaintenance, MAX_VALUE_LENGTH))} (was ${escape(capText(n.from, MAX_VALUE_LENGTH))} before it)`;
  if (n.coalesced > 0) text += ` (and ${n.coalesced} earlier change${n.coalesced === 1 ? '' : 's'})`;
  return text;
}

/**
 * The lines of a group message, one per application and outcome:
 * "12 instances of shop are DOWN: 1a2b3c4d5e6f, … and 2 more".
 */
export function groupLines(group: GroupNotification, escape: Escape): string[] {
  const buckets = new Map<string, InstanceNotification[]>();
  for (const item of group.items) {
    const key = `${item.type}\u0000${item.instance.name}\u0000${item.to}`;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(item);
    else buckets.set(key, [item]);
  }
  const lines = [...buckets.values()].map((items) => bucketLine(items, escape));
  if (lines.length > MAX_GROUP_LINES) {
    const rest = lines.length - MAX_GROUP_LINES + 1;
    lines.splice(MAX_GROUP_LINES - 1, lines.length, `and ${rest} more lines`);
  }
  return lines;
}

function bucketLine(items: readonly InstanceNotification[], escape: Escape): string {
  const first = items[0]!;
  const name = escape(capText(first.instance.name, MAX_VALUE_LENGTH));
  const status = escape(capText(first.to, MAX_VALUE_LENGTH));
  if (items.length === 1) return `${name} (${escape(first.instance.id)}) ${verb(first.type, false)}${first.type === 'STATUS_CHANGED' ? ` ${status}` : ''}`;
  const ids = items.slice(0, IDS_PER_LINE).map((item) => escape(item.instance.id)).join(', ');
  const more = items.length > IDS_PER_LINE ? ` and ${items.length - IDS_PER_LINE} more` : '';
  const what = first.type === 'STATUS_CHANGED' ? `${verb(first.type, true)} ${status}` : verb(first.type, true);
  return `${items.length} instances of ${name} ${what}: ${ids}${more}`;
}

function verb(type: NotifiedInstanceEventType, plural: boolean): string {
  if (type === 'REGISTERED') return plural ? 'registered' : 'has registered';
  if (type === 'DEREGISTERED') return plural ? 'deregistered' : 'has deregistered';
  return plural ? 'are' : 'is';
}

/** The first line of a group message. */
export function groupTitle(group: GroupNotification): string {
  const count = group.items.length;
  return `${group.reminder ? 'Reminder: ' : ''}${count} change${count === 1 ? '' : 's'} of instance status`;
}

/** The one message that replaces a storm of OFFLINE changes (or of recoveries from OFFLINE), or ends it. */
export function summaryText(summary: SummaryNotification): string {
  if (summary.direction === 'lost') return `Vigil lost contact with ${summary.count} of ${summary.total} instances — suspect the network or Vigil's host`;
  if (summary.direction === 'recovered') return `The ${summary.count} instances Vigil lost contact with are all back or deregistered`;
  const failing = summary.remaining === 1 ? '; 1 instance is still failing' : `; ${summary.remaining} instances are still failing`;
  return `Vigil regained contact with ${summary.count} of ${summary.total} instances${summary.remaining > 0 ? failing : ''}`;
}

/** Joins whole lines while they fit in `max` characters, then `…`: markup is never cut in half. */
export function joinLines(lines: readonly string[], max: number, separator = '\n'): string {
  let out = '';
  for (const line of lines) {
    const next = out ? `${out}${separator}${line}` : line;
    if (next.length > max - 2) return out ? `${out}${separator}…` : capText(line, max);
    out = next;
  }
  return out;
}
