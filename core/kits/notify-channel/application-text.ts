import type { ApplicationNotification } from './channel.js';
import type { Escape } from './escape.js';
import { MAX_VALUE_LENGTH, capText } from './template.js';
import { MAX_GROUP_LINES } from './texts.js';

/**
 * The one line that says what a fleet expectation found, for every channel (a message title, a
 * mail subject, an alert summary):
 * - "orders is degraded: 1 of 3 instances UP, 2 required"
 * - "orders has disappeared: no instance registered, 2 required UP"
 * - "orders has recovered: 2 of 2 instances UP, 2 required"
 * - "orders is no longer expected: no instance registered since 2026-03-29T01:00:00.000Z"
 * - "orders is no longer expected: no expectation covers it any more" (the config changed)
 */
export function applicationTitle(n: ApplicationNotification, escape: Escape): string {
  const name = escape(capText(n.application, MAX_VALUE_LENGTH));
  if (n.type === 'APPLICATION_DEGRADED') {
    if (n.disappeared) return `${name} has disappeared: no instance registered, ${n.required} required UP`;
    return `${name} is degraded: ${n.up} of ${n.total} instance${n.total === 1 ? '' : 's'} UP, ${n.required} required`;
  }
  if (n.forgotten) return n.disappeared ? `${name} is no longer expected: no instance registered since ${n.since}` : `${name} is no longer expected: no expectation covers it any more`;
  return `${name} has recovered: ${n.up} of ${n.total} instance${n.total === 1 ? '' : 's'} UP, ${n.required} required`;
}

/** One line per instance listed ("1a2b3c4d5e6f is DOWN"), then "and N more" when the list or the notification was cut. */
export function applicationLines(n: ApplicationNotification, escape: Escape): string[] {
  const lines = n.instances.slice(0, MAX_GROUP_LINES).map((instance) => `${escape(instance.id)} is ${escape(capText(instance.status, MAX_VALUE_LENGTH))}`);
  const more = n.total - lines.length;
  if (more > 0) lines.push(`and ${more} more instance${more === 1 ? '' : 's'}`);
  return lines;
}
