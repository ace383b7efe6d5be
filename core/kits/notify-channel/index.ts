/**
 * # The notification channel kit (`vigil/notify-channel`)
 *
 * What a channel plugin (`notify-slack`, `notify-mail`, a third-party one) shares with the
 * others: `defineChannel` makes the plugin from a description of its channel (it depends on
 * `notify`, contributes under `NOTIFICATION_CHANNEL`, applies a reloaded section, and turns the
 * channel off with a warning when its required key is empty); the schema helpers give every
 * channel the same `on`, `ignore-changes`, `rate-limit` and message keys; the texts and escapes
 * write messages that no instance-controlled value can turn into markup. `NOTIFICATION_CHANNEL`
 * and the `NotificationChannel` it carries are the contract between `notify` (which collects the
 * channels and runs the pipeline) and each channel. The kit uses only the
 * plugin contract (`vigil/plugin`), as a third-party channel would.
 */
export {
  APPLICATION_EVENT_TYPES, NOTIFICATION_CHANNEL, NOTIFIED_EVENT_TYPES, type ApplicationEventType, type ApplicationNotification, type Attempt,
  type ChannelSettings, type DeliveryTools, type GroupNotification, type InstanceNotification, type MaintenanceHook, type MaintenanceWindowFacts,
  type Notification, type NotificationChannel, type NotifiedEventType, type NotifiedInstance, type NotifiedInstanceEventType,
  type OutgoingRequest, type SummaryNotification,
} from './channel.js';
export * as escapes from './escape.js';
export type { Escape } from './escape.js';
export { TEMPLATE_FIELDS, TemplateError, capText, fieldValue, parseTemplate, renderTemplate, type Template } from './template.js';
export { sendEach } from './send-each.js';
export { MAX_GROUP_LINES, groupLines, groupTitle, instanceText, joinLines, summaryText, type MessageTemplates } from './texts.js';
export { applicationLines, applicationTitle } from './application-text.js';
// Globs name applications in routes, windows and expectations alike; the rule is the domain's, so the dashboard bundles the same one.
export { globMatcher, globRegExpSource } from '../../domain/index.js';
export {
  CHANGE_PATTERN, TARGET_NAME, channelSchema, channelSettingsOf, httpUrl, maskedUrl, messageTemplatesOf, secret, targetSection, template,
  type ChannelDefaults, type ChannelSection,
} from './channel-schema.js';
export { LiveChannel, defineChannel, type ChannelPluginDefinition } from './define-channel.js';
