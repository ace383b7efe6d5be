import { applicationTitle, escapes, groupLines, summaryText, type InstanceNotification, type Notification } from '../../core/kits/notify-channel/index.js';

/**
 * Vigil's own webhook body, built as an object (never by string concatenation). One change:
 * `{id, type, event, instance, from, to, reminder, reminderCount, coalesced}`; several changes of
 * a group window: `type: "GROUP"` with `notifications`; a storm: `type: "SELF_PRESERVATION"` (`remaining` 0: the storm is over);
 * a fleet expectation: `type: "APPLICATION_DEGRADED"` or `"APPLICATION_RECOVERED"` with the
 * application's counts and instances. A change reported at the end of a maintenance window
 * carries `afterMaintenance` (the window's id).
 */
export function webhookBody(notification: Notification): Record<string, unknown> {
  if (notification.kind === 'instance') return instanceBody(notification);
  if (notification.kind === 'group') {
    return {
      id: notification.id,
      type: 'GROUP',
      timestamp: notification.timestamp,
      reminder: notification.reminder,
      text: groupLines(notification, escapes.plain).join('\n'),
      notifications: notification.items.map(instanceBody),
    };
  }
  if (notification.kind === 'application') {
    return {
      id: notification.id,
      type: notification.type,
      timestamp: notification.timestamp,
      application: notification.application,
      up: notification.up,
      required: notification.required,
      total: notification.total,
      disappeared: notification.disappeared,
      forgotten: notification.forgotten,
      since: notification.since,
      text: applicationTitle(notification, escapes.plain),
      instances: notification.instances,
    };
  }
  return {
    id: notification.id,
    type: 'SELF_PRESERVATION',
    timestamp: notification.timestamp,
    direction: notification.direction,
    count: notification.count,
    total: notification.total,
    remaining: notification.remaining,
    text: summaryText(notification),
    instances: notification.instances,
  };
}

function instanceBody(n: InstanceNotification): Record<string, unknown> {
  return {
    id: n.id,
    type: n.type,
    event: { type: n.type, version: n.version, timestamp: n.timestamp },
    instance: {
      id: n.instance.id,
      name: n.instance.name,
      healthUrl: n.instance.healthUrl,
      managementUrl: n.instance.managementUrl,
      serviceUrl: n.instance.serviceUrl,
      source: n.instance.source,
      metadata: n.instance.metadata,
      statusInfo: n.instance.statusInfo,
    },
    from: n.from,
    to: n.to,
    reminder: n.reminder > 0,
    reminderCount: n.reminder,
    coalesced: n.coalesced,
    ...(n.afterMaintenance !== undefined ? { afterMaintenance: n.afterMaintenance } : {}),
  };
}
