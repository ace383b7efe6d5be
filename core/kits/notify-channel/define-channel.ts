import { definePlugin, type ConfigSchema, type PluginContext, type VigilPlugin } from '../../plugin-api.js';
import { NOTIFICATION_CHANNEL, type Attempt, type ChannelSettings, type DeliveryTools, type Notification, type NotificationChannel } from './channel.js';
import { channelSettingsOf, maskedUrl, messageTemplatesOf, type ChannelSection } from './channel-schema.js';
import type { MessageTemplates } from './texts.js';

/** A channel plugin as its author writes it: the key the channel needs, and the channel a section describes. */
export interface ChannelPluginDefinition<Config extends ChannelSection> {
  /** The plugin's name, `notify-<something>`; it names the channel too. */
  readonly name: string;
  readonly version?: string;
  readonly configSchema: ConfigSchema<Config>;
  /**
   * The key without which the channel is off (`webhook-url`, `routing-key`, `host`): while its
   * value is empty the channel is not built, and a warning says which key to set.
   */
  readonly requires: keyof Config & string;
  /** Other keys the warning names beside `requires` (`notify-telegram`: `chat-id`). */
  readonly alsoSet?: string;
  /**
   * How the channel a section describes delivers. Called at setup and again with each reloaded
   * section that has its `requires` key; a throw refuses that section (start-up stops; a reload
   * keeps the running channel).
   */
  channel(section: ChannelSectionInput<Config>): ChannelParts;
}

/** What `channel()` is given: the section being applied (during a reload `ctx.config` is still the old one). */
export interface ChannelSectionInput<Config extends ChannelSection> {
  readonly config: Config;
  /** The value of the `requires` key. */
  readonly value: string;
  /** The section's message templates (`messages`). */
  readonly templates: MessageTemplates;
  readonly ctx: PluginContext<Config>;
}

/**
 * A channel as its definition describes it. `defineChannel` names it after the plugin and, unless
 * given, takes its settings from the section (`on`, `ignore-changes`, `rate-limit`, reminders), its
 * target from the `requires` value as a masked URL, and that value as its one secret.
 */
export type ChannelParts = Omit<NotificationChannel, 'name' | 'settings' | 'target' | 'secrets' | 'onChange'>
  & Partial<Pick<NotificationChannel, 'settings' | 'target' | 'secrets'>>;

const OFF: ChannelSettings = { enabled: false, on: undefined, ignoreChanges: undefined, rateLimit: 0, reminders: false };

/**
 * The channel `notify` holds for a channel plugin: one object for the life of the kernel, which
 * delegates to the channel built from the current section, so a reload swaps what it delivers
 * through without `notify` rebuilding its queues (pending notifications go out the new way).
 * Secrets of earlier sections stay masked: a retry may log an answer that quotes one.
 */
export class LiveChannel implements NotificationChannel {
  #current: NotificationChannel | undefined;
  readonly #retiredSecrets = new Set<string>();
  readonly #listeners = new Set<() => void>();

  constructor(readonly name: string, current: NotificationChannel | undefined) {
    this.#current = current;
  }

  get settings(): ChannelSettings {
    return this.#current?.settings ?? OFF;
  }

  get target(): string {
    return this.#current?.target ?? '(not configured)';
  }

  get secrets(): readonly string[] {
    return [...(this.#current?.secrets ?? []), ...this.#retiredSecrets];
  }

  get periodic(): NotificationChannel['periodic'] {
    return this.#current?.periodic;
  }

  deliver(notification: Notification, tools: DeliveryTools): Promise<Attempt> {
    const current = this.#current;
    if (!current) return Promise.resolve({ outcome: 'failed', reason: 'the channel is no longer configured' });
    return current.deliver(notification, tools);
  }

  /** Puts the channel of a reloaded section in place, then tells `notify`; the old one is closed. */
  replace(next: NotificationChannel | undefined): void {
    const old = this.#current;
    for (const secret of old?.secrets ?? []) this.#retiredSecrets.add(secret);
    this.#current = next;
    for (const listener of this.#listeners) listener();
    void old?.close?.().catch(() => undefined);
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.#current?.close?.();
  }
}

/**
 * Makes a channel plugin from its definition: it depends on `notify`, contributes its channel
 * under `NOTIFICATION_CHANNEL` at setup, and applies a changed section on reload (SIGHUP) without
 * a restart. Every built-in `notify-*` plugin is written this way; so can a third-party one.
 */
export function defineChannel<Config extends ChannelSection>(definition: ChannelPluginDefinition<Config>): VigilPlugin<Config> {
  const { name, requires } = definition;
  const build = (ctx: PluginContext<Config>, config: Config): NotificationChannel | undefined => {
    const value = config[requires];
    if (typeof value !== 'string' || value === '') {
      ctx.log.warn(`no ${requires}: the channel is off (set ${name}.${requires}${definition.alsoSet ? ` and ${definition.alsoSet}` : ''})`);
      return undefined;
    }
    const parts = definition.channel({ config, value, templates: messageTemplatesOf(config), ctx });
    return { settings: channelSettingsOf(config), target: maskedUrl(value), secrets: [value], ...parts, name };
  };
  return definePlugin<Config>({
    name,
    ...(definition.version ? { version: definition.version } : {}),
    dependencies: ['notify'],
    configSchema: definition.configSchema,
    create(ctx) {
      const live = new LiveChannel(name, build(ctx, ctx.config));
      ctx.services.contribute(NOTIFICATION_CHANNEL, live);
      return {
        reload(config: Config) {
          live.replace(build(ctx, config));
          ctx.log.info(`channel ${live.target}${live.settings.enabled ? '' : ' (off)'}`);
        },
      };
    },
  });
}
