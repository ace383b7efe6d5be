import { pluginVersion } from './about.js';
import { VigilError, messageOf } from './errors.js';
import type { Logger, PluginContext, ReloadResult } from './plugin-api.js';
import type { PreparedPlugin } from './prepare.js';
import { withTimeout } from './timeout.js';

type Step = 'setup' | 'start' | 'stop';

/**
 * Runs the plugins' lifecycle: setup in order, start in order, stop in reverse. Every step has a
 * timeout; a failing setup or start names the plugin, and the plugins already started are
 * stopped again (Caddy's rollback), so a failed boot leaves nothing running.
 */
export class PluginHost {
  readonly #started: PreparedPlugin[] = [];
  /** One context per plugin for its whole life, so a plugin may key state on it. */
  readonly #contexts = new Map<PreparedPlugin, PluginContext<unknown>>();

  constructor(
    private readonly plugins: readonly PreparedPlugin[],
    private readonly contextOf: (plugin: PreparedPlugin) => PluginContext<unknown>,
    private readonly log: Logger,
    private readonly stepTimeout: number,
  ) {}

  async setup(): Promise<void> {
    for (const item of this.plugins) {
      const ms = await this.#run(item, 'setup', this.stepTimeout);
      this.log.debug(`plugin ${item.plugin.name} set up`, { ms, from: item.resolved.location });
    }
  }

  async start(): Promise<void> {
    for (const item of this.plugins) {
      try {
        await this.#run(item, 'start', this.stepTimeout);
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
      const remaining = Math.max(1, Math.min(this.stepTimeout, deadline - Date.now()));
      try {
        await this.#run(item, 'stop', remaining);
      } catch (error) {
        this.log.error(messageOf(error));
      }
    }
  }

  /**
   * Runs the `reload` hook of the plugin called `name` with its context, under the step timeout;
   * false when it has none. A failure names the plugin.
   */
  async reload(name: string, config: unknown): Promise<{ readonly restart: readonly string[] } | false> {
    const item = this.plugins.find((candidate) => candidate.plugin.name === name);
    const hook = item?.plugin.reload;
    const ctx = item && this.#contexts.get(item);
    if (!item || !hook || !ctx) return false;
    try {
      const result: ReloadResult = await withTimeout(async () => hook.call(item.plugin, ctx, config), this.stepTimeout, `plugin "${name}" reload`);
      return { restart: result ?? [] };
    } catch (error) {
      if (error instanceof VigilError && error.code === 'ERR_PLUGIN_TIMEOUT') throw error;
      throw new VigilError('ERR_PLUGIN_FAILED', `plugin "${name}" failed in reload: ${messageOf(error)}`, { cause: error });
    }
  }

  /** The boot report: each plugin with where it came from. */
  report(): string {
    return this.plugins.map((item) => {
      const version = pluginVersion(item);
      return `${item.plugin.name}${version ? `@${version}` : ''} (${item.resolved.source})`;
    }).join(', ');
  }

  async #run(item: PreparedPlugin, step: Step, timeoutMs: number): Promise<number> {
    const hook = item.plugin[step];
    if (!hook) return 0;
    const started = Date.now();
    try {
      let context = this.#contexts.get(item);
      if (!context) {
        context = this.contextOf(item);
        this.#contexts.set(item, context);
      }
      const ctx = context;
      await withTimeout(() => hook.call(item.plugin, ctx), timeoutMs, `plugin "${item.plugin.name}" ${step}`);
    } catch (error) {
      if (error instanceof VigilError && error.code === 'ERR_PLUGIN_TIMEOUT') throw error;
      throw new VigilError('ERR_PLUGIN_FAILED', `plugin "${item.plugin.name}" failed in ${step}: ${messageOf(error)}`, { cause: error });
    }
    return Date.now() - started;
  }
}
