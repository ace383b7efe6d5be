import {
  applicationTitle, escapes, type InstanceNotification, type Notification, type NotifiedInstance, type NotifiedInstanceEventType,
} from '../../core/kits/notify-channel/index.js';
import type { Instance } from '../../core/domain/index.js';
import type { JsonViews } from '../../core/plugin-api.js';

/** Health details larger than this (as JSON) are left out of notifications. */
const MAX_DETAILS_BYTES = 8 * 1024;

/** What a notification may say about an instance: the sanitised wire view, never the stored secrets. */
export function notifiedInstance(instance: Instance, views: JsonViews, status: string): NotifiedInstance {
  const registration = views.registration(instance.registration!);
  const current = instance.statusInfo.status === status;
  const details = current && JSON.stringify(instance.statusInfo.details).length <= MAX_DETAILS_BYTES ? instance.statusInfo.details : {};
  return {
    id: instance.id,
    name: registration.name,
    healthUrl: registration.healthUrl,
    managementUrl: registration.managementUrl || null,
    serviceUrl: registration.serviceUrl || null,
    source: registration.source,
    metadata: registration.metadata,
    statusInfo: { status, details },
  };
}

export interface ChangeFacts {
  readonly type: NotifiedInstanceEventType;
  readonly from: string;
  readonly to: string;
  readonly version: number;
  readonly timestamp: string;
  readonly reminder?: number;
}

export function instanceNotification(instance: NotifiedInstance, change: ChangeFacts, baseUrl: string): InstanceNotification {
  const reminder = change.reminder ?? 0;
  return {
    kind: 'instance',
    id: `${instance.id}-${change.version}${reminder > 0 ? `-r${reminder}` : ''}`,
    type: change.type,
    instance,
    from: change.from,
    to: change.to,
    version: change.version,
    timestamp: change.timestamp,
    reminder,
    coalesced: 0,
    baseUrl,
  };
}

/** A one-line description for logs and `GET /notifications`: `orders (1a2b3c4d5e6f) UP → DOWN`. */
export function describe(notification: Notification): string {
  if (notification.kind === 'summary') {
    if (notification.direction === 'recovered') return `all ${notification.count} instances of the storm back`;
    const still = notification.direction === 'regained' && notification.remaining > 0 ? `, ${notification.remaining} still failing` : '';
    return `${notification.direction} contact with ${notification.count} of ${notification.total} instances${still}`;
  }
  if (notification.kind === 'group') return `${notification.reminder ? 'reminder for ' : ''}${notification.items.length} changes`;
  if (notification.kind === 'application') return applicationTitle({ ...notification, application: notification.application.slice(0, 80) }, escapes.oneLine);
  const name = escapes.oneLine(notification.instance.name).slice(0, 80);
  const what = notification.type === 'STATUS_CHANGED' ? `${notification.from} → ${notification.to}` : notification.type.toLowerCase();
  const after = notification.afterMaintenance !== undefined ? ` (after maintenance ${notification.afterMaintenance})` : '';
  return `${name} (${notification.instance.id}) ${what}${notification.reminder > 0 ? ` (reminder ${notification.reminder})` : ''}${after}`;
}
