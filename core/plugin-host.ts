import { pluginVersion } from './about.js';
import { VigilError, messageOf } from './errors.js';
import type { Logger, PluginContext, PluginLifecycle, VigilPlugin } from './plugin-api.js';
import type { PreparedPlugin } from './prepare.js';
import { withTimeout } from './timeout.js';

type Step = 'setup' | 'start' | 'stop' | 'reload';

/**
 * Runs the plugins' lifecycle: setup in order, start in order, stop in reverse. Every step has a
 * timeout; a failing setup or start names the plugin, and the plugins already started are
 * stopped again (Caddy's rollback), so a failed boot leaves nothing running.
 *
 * Each plugin gets one context, made at its setup, and its setup makes its instance: what
 * `create` returns (or, for a plugin in the older form, its own `start`, `stop` and `reload`
 * bound to that context). The host keeps the instance; nothing else keeps plugin state.
 */
export class PluginHost {
  readonly #started: PreparedPlugin[] = [];
  readonly #instances = new Map<PreparedPlugin, PluginLifecycle<unknown>>();

  constructor(
    private readonly plugins: readonly PreparedPlugin[],
    private readonly contextOf: (plugin: PreparedPlugin) => PluginContext<unknown>,
    private readonly log: Logger,
    private readonly stepTimeout: number,
  ) {}

  async setup(): Promise<void> {
    for (const item of this.plugins) {
      const started = Date.now();
      const ctx = this.contextOf(item);
      const instance = await this.#run(item, 'setup', this.stepTimeout, () => create(item.plugin, ctx));
      this.#instances.set(item, instance ?? {});
      this.log.debug(`plugin ${item.plugin.name} set up`, { ms: Date.now() - started, from: item.resolved.location });
    }
  }

  async start(): Promise<void> {
    for (const item of this.plugins) {
      const instance = this.#instances.get(item);
      try {
        if (instance?.start) await this.#run(item, 'start', this.stepTimeout, () => instance.start!());
      } catch (error) {
        await this.stop(this.stepTimeout * this.#started.length);
        throw error;
      }
      this.#started.push(item);
    }
  }

  /** Stops started plugins in reverse; failures are logged and the rest still stop. */
  async stop(budgetMs: number): Promise<void> {
    const deadline = Date.now() + budgetMs;
    while (this.#started.length > 0) {
      const item = this.#started.pop()!;
      const instance = this.#instances.get(item);
      const remaining = Math.max(1, Math.min(this.stepTimeout, deadline - Date.now()));
      try {
        if (instance?.stop) await this.#run(item, 'stop', remaining, () => instance.stop!());
      } catch (error) {
        this.log.error(messageOf(error));
      }
    }
  }

  /**
   * Hands a changed section to the `reload` of the plugin called `name`, under the step timeout;
   * false when it has none. A failure names the plugin.
   */
  async reload(name: string, config: unknown): Promise<{ readonly restart: readonly string[] } | false> {
    const item = this.plugins.find((candidate) => candidate.plugin.name === name);
    const instance = item && this.#instances.get(item);
    if (!item || !instance?.reload) return false;
    const result = await this.#run(item, 'reload', this.stepTimeout, () => instance.reload!(config));
    return { restart: result ?? [] };
  }

  /** The boot report: each plugin with where it came from. */
  report(): string {
    return this.plugins.map((item) => {
      const version = pluginVersion(item);
      return `${item.plugin.name}${version ? `@${version}` : ''} (${item.resolved.source})`;
    }).join(', ');
  }

  async #run<T>(item: PreparedPlugin, step: Step, timeoutMs: number, call: () => T | Promise<T>): Promise<T> {
    try {
      return await withTimeout(async () => call(), timeoutMs, `plugin "${item.plugin.name}" ${step}`);
    } catch (error) {
      if (error instanceof VigilError && error.code === 'ERR_PLUGIN_TIMEOUT') throw error;
      throw new VigilError('ERR_PLUGIN_FAILED', `plugin "${item.plugin.name}" failed in ${step}: ${messageOf(error)}`, { cause: error });
    }
  }
}

/**
 * The setup step of one plugin: its `create`, or for a plugin in the older form its `setup`,
 * with `start`, `stop` and `reload` bound to the same context as its lifecycle.
 */
async function create(plugin: VigilPlugin<unknown>, ctx: PluginContext<unknown>): Promise<PluginLifecycle<unknown> | void> {
  if (plugin.create) return plugin.create(ctx);
  await plugin.setup!.call(plugin, ctx);
  const { start, stop, reload } = plugin;
  return {
    ...(start ? { start: () => start.call(plugin, ctx) } : {}),
    ...(stop ? { stop: () => stop.call(plugin, ctx) } : {}),
    ...(reload ? { reload: (config: unknown) => reload.call(plugin, ctx, config) } : {}),
  };
}
