import { definePlugin, type ConfigSchema, type PluginContext, type Registry, type VigilPlugin } from '../plugin-api.js';
import { NOTIFICATION_CHANNEL, type Attempt, type ChannelSettings, type DeliveryTools, type Notification, type NotificationChannel } from '../contract/notification.js';
import type { ChannelSection } from './channel-schema.js';

/** A channel plugin as its author writes it: the channel a section describes, nothing about lifecycles. */
export interface ChannelPluginDefinition<Config extends ChannelSection> {
  /** The plugin's name, `notify-<something>`; it names the channel too. */
  readonly name: string;
  readonly version?: string;
  readonly configSchema: ConfigSchema<Config>;
  /**
   * The channel `config` describes, or `undefined` when the section leaves it off (log why with
   * `ctx.log.warn`). Called at setup and again with each reloaded section; a throw refuses that
   * section (start-up stops; a reload keeps the running channel). Read `config`, not `ctx.config`,
   * which is still the old section during a reload.
   */
  build(ctx: PluginContext<Config>, config: Config): NotificationChannel | undefined;
}

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
 * Makes a channel plugin from its definition: it depends on `notify`, contributes its channel
 * under `NOTIFICATION_CHANNEL` at setup, and applies a changed section on reload (SIGHUP) without
 * a restart. Every built-in `notify-*` plugin is written this way; so can a third-party one.
 */
export function defineChannel<Config extends ChannelSection>(definition: ChannelPluginDefinition<Config>): VigilPlugin<Config> {
  // The plugin object is shared by every kernel in the process (tests run many); the registry identifies a kernel.
  const channels = new WeakMap<Registry, LiveChannel>();
  return definePlugin<Config>({
    name: definition.name,
    ...(definition.version ? { version: definition.version } : {}),
    dependencies: ['notify'],
    configSchema: definition.configSchema,
    setup(ctx) {
      const live = new LiveChannel(definition.name, definition.build(ctx, ctx.config));
      channels.set(ctx.instances, live);
      ctx.services.contribute(NOTIFICATION_CHANNEL, live);
    },
    reload(ctx, config) {
      const live = channels.get(ctx.instances);
      if (!live) return ['*'];
      live.replace(definition.build(ctx, config));
      ctx.log.info(`channel ${live.target}${live.settings.enabled ? '' : ' (off)'}`);
    },
    stop(ctx) {
      channels.delete(ctx.instances);
    },
  });
}
