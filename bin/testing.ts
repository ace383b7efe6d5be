/**
 * Test helpers for plugin authors, published as `vigil/testing`:
 * - `checkPlugin` loads a plugin the way the daemon would and lists every problem;
 * - `startTestKernel` runs a real kernel on 127.0.0.1 with any port, with the given plugins,
 *   and captures its log lines instead of printing them.
 */
import { PassThrough } from 'node:stream';
import { builtinPlugins } from './builtin-plugins.js';
import { ProblemsError } from '../core/errors.js';
import { Kernel } from '../core/kernel.js';
import { KERNEL_PARTS } from './kernel-parts.js';
import { createLogger } from './logger.js';
import type { InstanceEvent } from '../core/domain/index.js';
import type { VigilPlugin } from '../core/plugin-api.js';
import { prepare, type Prepared } from '../core/prepare.js';
import type { BuiltinPlugin, BuiltinPlugins } from '../core/plugin-resolve.js';
import type { ReloadReport } from '../core/reload.js';

export interface TestKernelOptions {
  /** `plugins:` entries (names, paths, packages) or plugin objects. */
  readonly plugins: readonly (string | VigilPlugin<never>)[];
  /** The rest of the config, as in registry.config.yaml. */
  readonly config?: Record<string, unknown>;
  /** Where relative plugin paths resolve from (default: the current directory). */
  readonly baseDir?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface TestKernel {
  /** Base URL, context path included, e.g. `http://127.0.0.1:41234/admin`. */
  readonly url: string;
  readonly kernel: Kernel;
  /** Every log line so far (text format). */
  logs(): string[];
  /**
   * Resolves with the first recorded event that matches, looking at the held history first and
   * then awaiting new ones; rejects after `timeoutMs` naming `what`.
   */
  waitForEvent(match: (event: InstanceEvent) => boolean, what: string, timeoutMs?: number): Promise<InstanceEvent>;
  /**
   * Reloads with `config` in place of the config given at start (same plugins unless it names
   * others), as SIGHUP does: rejects with the problems of an invalid one (a `ProblemsError`),
   * else resolves with what was applied and what needs a restart.
   */
  reload(config: Record<string, unknown>): Promise<ReloadReport>;
  stop(): Promise<void>;
}

/** Validates a plugin and its config without starting anything; [] when it would load. */
export async function checkPlugin(plugin: string | VigilPlugin<never>, config: Record<string, unknown> = {}, baseDir = process.cwd()): Promise<string[]> {
  try {
    await prepareFor({ plugins: [plugin], config, baseDir });
    return [];
  } catch (error) {
    if (error instanceof ProblemsError) return [...error.problems];
    throw error;
  }
}

export async function startTestKernel(options: TestKernelOptions): Promise<TestKernel> {
  const prepared = await prepareFor(options);
  const sink = new PassThrough();
  const lines: string[] = [];
  let partial = '';
  sink.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  const log = createLogger({ level: prepared.settings['log-level'], format: prepared.settings['log-format'], stream: sink });
  const kernel = new Kernel(prepared, log, KERNEL_PARTS);
  const url = await kernel.start();
  return {
    url,
    kernel,
    logs: () => [...lines, ...(partial ? [partial] : [])],
    waitForEvent: (match, what, timeoutMs = 5000) => waitForEvent(kernel, match, what, timeoutMs),
    reload: async (config) => kernel.reload(await prepareFor({ ...options, config })),
    stop: () => kernel.stop(),
  };
}

async function prepareFor(options: TestKernelOptions): Promise<Prepared> {
  const extra: Record<string, BuiltinPlugin> = {};
  const entries = options.plugins.map((plugin) => {
    if (typeof plugin === 'string') return plugin;
    const object = plugin as VigilPlugin<unknown>;
    extra[object.name] = { section: object.configKey === undefined ? object.name : object.configKey, load: async () => object };
    return object.name;
  });
  const builtins: BuiltinPlugins = { ...builtinPlugins, ...extra };
  return prepare({
    config: { host: '127.0.0.1', port: 0, 'log-level': 'debug', ...options.config, plugins: entries },
    cwd: options.baseDir ?? process.cwd(),
    env: options.env ?? process.env,
    builtins,
  });
}

function waitForEvent(kernel: Kernel, match: (event: InstanceEvent) => boolean, what: string, timeoutMs: number): Promise<InstanceEvent> {
  const held = kernel.registry.events().find(match);
  if (held) return Promise.resolve(held);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no event matching ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = kernel.bus.on('instance.changed', ({ event }) => {
      if (!match(event)) return;
      clearTimeout(timer);
      off();
      resolve(event);
    });
  });
}
