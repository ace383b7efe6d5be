import { definePlugin, type ConfigSchema, type PluginContext, type VigilPlugin } from '../../plugin-api.js';
import { NOTIFICATION_CHANNEL, type Attempt, type ChannelSettings, type DeliveryTools, type Notification, type NotificationChannel } from './channel.js';
import { channelSettingsOf, maskedUrl, messageTemplatesOf, targetSection, type ChannelSection } from './channel-schema.js';
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
  /** The target's section: the channel's, with the target's own keys over it (the default target: the channel's). */
  readonly config: Config;
  /**
   * The target's name: the plugin's (`notify-alertmanager`) for the default target, else
   * `notify-alertmanager:payments`. State a channel keeps (in `SHARED_STATE`) is keyed by it, so
   * two targets never share it.
   */
  readonly target: string;
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

  get maintenance(): NotificationChannel['maintenance'] {
    return this.#current?.maintenance;
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
 * Makes a channel plugin from its definition: it depends on `notify`, contributes one channel per
 * target under `NOTIFICATION_CHANNEL` at setup (the section itself is the default target, named
 * after the plugin; each entry of `targets` is another, `<plugin>:<target>`, with its own queue,
 * pacing and counters in `notify`), and applies a changed section on reload (SIGHUP) without a
 * restart. Every built-in `notify-*` plugin is written this way; so can a third-party one.
 */
export function defineChannel<Config extends ChannelSection>(definition: ChannelPluginDefinition<Config>): VigilPlugin<Config> {
  const { name, requires } = definition;
  const build = (ctx: PluginContext<Config>, config: Config, target: string, hasTargets: boolean): NotificationChannel | undefined => {
    const value = config[requires];
    if (typeof value !== 'string' || value === '') {
      const key = target === name ? `${name}.${requires}` : `${name}.targets.${target.slice(name.length + 1)}.${requires}`;
      // With targets, a section without its key is only a template for them: nothing to warn about.
      if (target === name && hasTargets) ctx.log.info(`no ${requires}: the default target ${name} is off; its targets inherit the rest of the section`);
      else ctx.log.warn(`no ${requires}: ${target === name ? 'the channel' : `target ${target}`} is off (set ${key}${definition.alsoSet ? ` and ${definition.alsoSet}` : ''})`);
      return undefined;
    }
    const parts = definition.channel({ config, target, value, templates: messageTemplatesOf(config), ctx });
    return { settings: channelSettingsOf(config), target: maskedUrl(value), secrets: [value], ...parts, name: target };
  };
  /** Each target's section (the default's first), validated as the schema casts it. */
  const sectionsOf = async (config: Config): Promise<Map<string, Config>> => {
    const sections = new Map<string, Config>([[name, config]]);
    for (const target of Object.keys(config.targets ?? {})) {
      sections.set(`${name}:${target}`, await definition.configSchema.validate(targetSection(config as unknown as Record<string, unknown>, target)));
    }
    return sections;
  };
  return definePlugin<Config>({
    name,
    ...(definition.version ? { version: definition.version } : {}),
    dependencies: ['notify'],
    configSchema: definition.configSchema,
    async create(ctx) {
      const lives = new Map<string, LiveChannel>();
      const initial = await sectionsOf(ctx.config);
      for (const [target, config] of initial) {
        const live = new LiveChannel(target, build(ctx, config, target, initial.size > 1));
        lives.set(target, live);
        ctx.services.contribute(NOTIFICATION_CHANNEL, live);
      }
      return {
        async reload(config: Config) {
          const next = await sectionsOf(config);
          for (const [target, live] of lives) {
            const section = next.get(target);
            live.replace(section ? build(ctx, section, target, next.size > 1) : undefined);
            ctx.log.info(`channel ${target} → ${live.target}${live.settings.enabled ? '' : ' (off)'}`);
          }
          // notify holds a queue per target from its start: a new target needs a restart.
          return [...next.keys()].filter((target) => !lives.has(target)).map((target) => `targets.${target.slice(name.length + 1)}`);
        },
      };
    },
  });
}
