import { builtinPlugins } from './builtin-plugins.js';
import { HELP, parseCli } from './cli.js';
import { ProblemsError, messageOf } from '../core/errors.js';
import { limitHeapGrowth, mallocArenaHint, semiSpaceHint } from './heap-growth.js';
import { settleHeapAfterBursts } from './heap-settle.js';
import { Kernel } from '../core/kernel.js';
import { KERNEL_PARTS } from './kernel-parts.js';
import { createLogger } from './logger.js';
import type { Logger } from '../core/plugin-api.js';
import { prepare, type Prepared } from '../core/prepare.js';
import { vigilVersion } from '../core/version.js';

const FAILSAFE_MS = 4900;

/**
 * argv → config → kernel → signals. The only file that touches `process`: everything below it
 * takes its inputs as arguments, so tests can run many kernels in one process.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const cli = parseCli(argv);
  if (!cli.ok) return fail(cli.problems);
  const { options } = cli;
  if (options.command === 'help') {
    process.stdout.write(HELP);
    return;
  }
  if (options.command === 'plugin') {
    process.exitCode = await runPluginCommand(options.name!, options.args ?? []);
    return;
  }
  if (options.command === 'probe') {
    const { runProbeCommand } = await import('./probe-command.js');
    process.exitCode = await runProbeCommand(options.args ?? [], { stdout: process.stdout, stderr: process.stderr });
    return;
  }
  if (options.command === 'migrate-config') {
    process.exitCode = await runMigrateConfig(options.migrate!.file, options.migrate!.profiles);
    return;
  }
  if (options.command === 'version') {
    process.stdout.write(`${vigilVersion()}\n`);
    return;
  }

  // The same inputs at start and at every reload: the file is read again, the flags still win.
  const prepareConfig = () => prepare({
    cwd: process.cwd(),
    env: process.env,
    overrides: options.overrides,
    builtins: builtinPlugins,
    ...(options.configFile ? { configFile: options.configFile } : {}),
  });
  let prepared;
  try {
    prepared = await prepareConfig();
  } catch (error) {
    return fail(error instanceof ProblemsError ? error.problems : [messageOf(error)]);
  }
  if (options.checkConfig) {
    for (const warning of prepared.warnings) process.stderr.write(`vigil: warning: ${warning}\n`);
    process.stdout.write(`config OK: ${prepared.filepath ?? 'built-in defaults'}; plugins: ${prepared.plugins.map((p) => p.plugin.name).join(', ')}\n`);
    return;
  }

  const log = createLogger({ level: prepared.settings['log-level'], format: prepared.settings['log-format'] });
  guardProcess(log);
  const heapFlag = limitHeapGrowth(process.execArgv, process.env.NODE_OPTIONS);
  log.debug(heapFlag ? `V8 heap growth limited: ${heapFlag}` : 'V8 heap flags left as the operator set them');
  // Only for the debug log: the arena hint reads a diagnostic report (a few ms at start).
  if (prepared.settings['log-level'] === 'debug') {
    for (const hint of [semiSpaceHint(process.execArgv, process.env.NODE_OPTIONS), mallocArenaHint(process.env)]) if (hint) log.debug(hint);
  }
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  settleHeapAfterBursts(({ before, after, steps, longestPauseMs }) => log.debug(
    `heap compacted after a burst: old generation ${mb(before.committed)} → ${mb(after.committed)} MB committed (${mb(after.used)} MB used), ${steps} collections, the longest ${Math.round(longestPauseMs)} ms`,
  ));
  const kernel = new Kernel(prepared, log, KERNEL_PARTS);
  const started = kernel.start();
  // Signals are handled from before the first line says "listening": a supervisor may stop us at once.
  const shutdown = (signal: NodeJS.Signals | 'exit requested', exitCode = 0) => {
    log.info(`${signal === 'exit requested' ? 'a plugin asked to exit' : `${signal} received`}, stopping`);
    // Also the code if the process ends on its own before the explicit exit below.
    process.exitCode = exitCode;
    // Whatever happens, the process is gone before the 5 s systemd and the contract allow.
    setTimeout(() => {
      log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, FAILSAFE_MS).unref();
    started
      .then(() => kernel.stop(), () => undefined)
      .then(
        () => process.exit(exitCode),
        (error: unknown) => {
          log.error(`shutdown failed: ${messageOf(error)}`);
          process.exit(1);
        },
      );
  };
  // A signal listener also gets the signal's number; it must not become the exit code.
  const onSignal = (signal: NodeJS.Signals) => shutdown(signal);
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  kernel.onExitRequest((exitCode) => shutdown('exit requested', exitCode));
  // SIGHUP (`systemctl reload`): without a listener Node would exit, so it is caught from the start.
  const reload = () => {
    started.then(() => reloadConfig(kernel, prepareConfig, log), () => undefined).catch((error: unknown) => log.error(`config reload failed: ${messageOf(error)}`));
  };
  process.on('SIGHUP', reload);
  try {
    await started;
  } catch (error) {
    log.error(`start-up failed: ${messageOf(error)}`);
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGHUP', reload);
    process.exitCode = 1;
  }
}

/**
 * Reads and validates the config again and applies what can change while running. An invalid
 * file changes nothing: each problem is logged on its own line and the running config stays.
 */
async function reloadConfig(kernel: Kernel, prepareConfig: () => Promise<Prepared>, log: Logger): Promise<void> {
  log.info('SIGHUP received, reloading the config');
  let next: Prepared;
  try {
    next = await prepareConfig();
  } catch (error) {
    const problems = error instanceof ProblemsError ? error.problems : [messageOf(error)];
    for (const problem of problems) log.error(`config reload refused: ${problem}`);
    log.error(`config reload refused (${problems.length} problem${problems.length === 1 ? '' : 's'}); the running config stays`);
    return;
  }
  for (const warning of next.warnings) log.warn(warning);
  const report = await kernel.reload(next);
  for (const line of report.restart) log.warn(`config reload: ${line} changed; it needs a restart and was not applied`);
  for (const line of report.failed) log.error(`config reload: ${line}; that section keeps its running value`);
  const applied = report.applied.length > 0 ? `applied ${report.applied.join(', ')}` : 'nothing to apply';
  log.info(`config reloaded from ${next.filepath ?? 'built-in defaults'}: ${applied}`);
}

/** Runs a built-in plugin's command, importing only the plugin the built-in map says has it. */
async function runPluginCommand(name: string, args: readonly string[]): Promise<number> {
  const builtin = Object.values(builtinPlugins).find((plugin) => plugin.commands?.includes(name))!;
  const command = (await builtin.load()).commands?.[name];
  if (!command) throw new Error(`the built-in map names a command "${name}" its plugin does not have`);
  return command.run(args, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, isTTY: Boolean(process.stdin.isTTY) });
}

/** Prints the converted config on stdout; a file that cannot be read or parsed is one line on stderr and exit code 1. */
async function runMigrateConfig(file: string, profiles: readonly string[]): Promise<number> {
  const [{ readFile }, { migrateConfig }] = await Promise.all([import('node:fs/promises'), import('../config/migrate/migrate-config.js')]);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    fail([`migrate-config: cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : messageOf(error)}`]);
    return 1;
  }
  try {
    process.stdout.write(migrateConfig(text, { fileName: file, profiles }));
    return 0;
  } catch (error) {
    fail([`migrate-config: ${file}: ${messageOf(error)}`]);
    return 1;
  }
}

function fail(problems: readonly string[]): void {
  for (const problem of problems) process.stderr.write(`vigil: ${problem}\n`);
  process.exitCode = 1;
}

/** A rejected promise nobody awaited is a bug to log, not a reason to drop every instance's monitoring. */
function guardProcess(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    log.error(`unhandled rejection: ${messageOf(reason)}`, { stack: reason instanceof Error ? reason.stack : undefined });
  });
}
