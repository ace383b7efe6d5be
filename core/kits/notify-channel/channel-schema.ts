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
  const common: yup.ObjectShape = {
    enabled: yup.boolean().default(true),
    on: yup.array(yup.string().oneOf([...NOTIFIED_EVENT_TYPES], '${path} must be one of ${values}').required())
      .default(defaults.on ? [...defaults.on] : undefined),
    'ignore-changes': yup.array(yup.string().matches(CHANGE_PATTERN, '${path} must look like FROM:TO, *:TO or FROM:* (e.g. UNKNOWN:UP)').required())
      .default(undefined),
    'rate-limit': yup.number().min(0).default(defaults.rateLimit ?? 0),
    ...messages,
    ...keys,
  };
  const target = yup.object(common).exact(unknownKeys);
  return yup.object({
    ...common,
    targets: yup.object().typeError('${path} must be a map of target names to sections').default({})
      .test('target-names', '', function names(value) {
        const bad = Object.entries(value ?? {}).find(([name, section]) => !TARGET_NAME.test(name) || typeof section !== 'object' || section === null || Array.isArray(section));
        if (!bad) return true;
        const [name] = bad;
        if (TARGET_NAME.test(name)) return this.createError({ path: `${this.path}.${name}`, message: `${this.path}.${name} must be a map of the channel's keys` });
        return this.createError({ message: `${this.path} "${name.slice(0, 64)}" is not a target name (letters, digits, '_' and '-', at most 64)` });
      }),
  }).exact(unknownKeys).default({}).test('targets', '', function targets(section) {
    // Each target is checked as it will run: the channel's section with the target's keys over it.
    const problems: yup.ValidationError[] = [];
    for (const [name, keys] of Object.entries((section as { targets?: Record<string, unknown> } | undefined)?.targets ?? {})) {
      if (!TARGET_NAME.test(name) || typeof keys !== 'object' || keys === null) continue;
      try {
        target.validateSync(targetSection(section as Record<string, unknown>, name), { abortEarly: false, stripUnknown: false });
      } catch (error) {
        if (!(error instanceof yup.ValidationError)) throw error;
        for (const leaf of error.inner.length > 0 ? error.inner : [error]) {
          const path = [this.path, 'targets', name, leaf.path].filter(Boolean).join('.');
          const named = leaf.path || 'this';
          const message = leaf.message.startsWith(named) ? `${path}${leaf.message.slice(named.length)}` : `${path}: ${leaf.message}`;
          problems.push(this.createError({ path, message: () => message }));
        }
      }
    }
    return problems.length === 0 ? true : new yup.ValidationError(problems);
  });
}

/** A target's name (`payments` in `notify-slack:payments`). */
export const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * The section a target runs with: the channel's section (its default target) with the target's
 * own keys over it, `targets` left out. Validate it with the channel's schema for the defaults.
 */
export function targetSection(section: Readonly<Record<string, unknown>>, name: string): Record<string, unknown> {
  const { targets, ...defaults } = section;
  const own = (targets as Record<string, Record<string, unknown>> | undefined)?.[name] ?? {};
  return { ...defaults, ...own };
}

/** The common keys as read from a validated section. */
export interface ChannelSection {
  readonly enabled: boolean;
  /** Named targets (`notify-slack:payments`), each the channel's keys it sets differently (schemas made with `channelSchema`). */
  readonly targets?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
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
