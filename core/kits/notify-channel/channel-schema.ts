import * as yup from 'yup';
import { NOTIFIED_EVENT_TYPES, type ChannelSettings, type NotifiedEventType } from './channel.js';
import { TemplateError, parseTemplate, type Template } from './template.js';
import type { MessageTemplates } from './texts.js';

/**
 * Config helpers every channel plugin uses for its section, so the common keys (`enabled`, `on`,
 * `ignore-changes`, `message`, `rate-limit`) mean the same everywhere, templates are checked at
 * load time (so `--check-config` refuses an expression too), and no message ever quotes a secret.
 */

const unknownKeys = '${path} has unknown key(s): ${properties}';

/** `from:to`, `*:to` or `from:*`, as SBA's `ignore-changes`. */
export const CHANGE_PATTERN = /^(\*|[A-Za-z_]+):(\*|[A-Za-z_]+)$/;

/** A template string, parsed when validated: a bad placeholder is a config error naming the key. */
export function template(defaultText: string) {
  return yup.string().typeError('${path} must be a string').default(defaultText).test('template', '', function check(value) {
    if (value === undefined) return true;
    try {
      parseTemplate(value);
      return true;
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      // A function, so yup does not interpolate `${...}` found in the operator's text.
      return this.createError({ message: () => `${this.path} ${error.message}` });
    }
  });
}

/** A secret string (token, password, key): its value is never quoted in an error. */
export function secret(): yup.StringSchema<string | undefined> {
  return yup.string().typeError('${path} must be a string');
}

/** An absolute http(s) URL; the error never quotes it (webhook URLs are secrets). */
export function httpUrl(): yup.StringSchema<string | undefined> {
  return yup.string().typeError('${path} must be a string').test('http-url', '${path} must be an absolute http:// or https:// URL', (value) => {
    if (value === undefined || value === '') return true;
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  });
}

export interface ChannelDefaults {
  /** Default templates; a channel without text messages (the generic webhook) passes none. */
  readonly messages?: { readonly status: string; readonly registered: string; readonly deregistered: string };
  /** Default `on`; undefined inherits the `notify` section's. */
  readonly on?: readonly NotifiedEventType[];
  /** Default messages per second (0 = unlimited). */
  readonly rateLimit?: number;
}

/** The section of a channel: the common keys, then the channel's own `keys`. Unknown keys are errors. */
export function channelSchema(keys: yup.ObjectShape, defaults: ChannelDefaults = {}) {
  const messages: yup.ObjectShape = defaults.messages
    ? {
        message: template(defaults.messages.status),
        'registered-message': template(defaults.messages.registered),
        'deregistered-message': template(defaults.messages.deregistered),
      }
    : {};
  return yup.object({
    enabled: yup.boolean().default(true),
    on: yup.array(yup.string().oneOf([...NOTIFIED_EVENT_TYPES], '${path} must be one of ${values}').required())
      .default(defaults.on ? [...defaults.on] : undefined),
    'ignore-changes': yup.array(yup.string().matches(CHANGE_PATTERN, '${path} must look like FROM:TO, *:TO or FROM:* (e.g. UNKNOWN:UP)').required())
      .default(undefined),
    'rate-limit': yup.number().min(0).default(defaults.rateLimit ?? 0),
    ...messages,
    ...keys,
  }).exact(unknownKeys).default({});
}

/** The common keys as read from a validated section. */
export interface ChannelSection {
  readonly enabled: boolean;
  readonly on?: NotifiedEventType[];
  readonly 'ignore-changes'?: string[];
  readonly 'rate-limit': number;
  readonly message?: string;
  readonly 'registered-message'?: string;
  readonly 'deregistered-message'?: string;
}

export function channelSettingsOf(section: ChannelSection, reminders = true): ChannelSettings {
  return {
    enabled: section.enabled,
    on: section.on,
    ignoreChanges: section['ignore-changes']?.map((change) => change.toUpperCase()),
    rateLimit: section['rate-limit'],
    reminders,
  };
}

/** The parsed templates of a section validated with `messages` defaults. */
export function messageTemplatesOf(section: ChannelSection): MessageTemplates {
  const parse = (text: string | undefined): Template => parseTemplate(text ?? '');
  return {
    STATUS_CHANGED: parse(section.message),
    REGISTERED: parse(section['registered-message']),
    DEREGISTERED: parse(section['deregistered-message']),
  };
}

/** A URL shown without its secret parts: the origin, and `/******` for any path or query. */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const hidden = parsed.pathname !== '/' || parsed.search !== '' || parsed.username !== '' || parsed.password !== '';
    return `${parsed.protocol}//${parsed.host}${hidden ? '/******' : '/'}`;
  } catch {
    return '******';
  }
}
