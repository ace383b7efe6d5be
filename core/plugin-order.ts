import type { VigilPlugin } from './plugin-api.js';

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** Checks a plugin object against the contract (hapi validates the plugin object itself on load). */
export function pluginShapeProblems(value: unknown, entry: string): string[] {
  const where = `plugin "${entry}"`;
  if (!value || typeof value !== 'object') return [`${where}: the module must export a plugin object (default export), got ${typeof value}`];
  const plugin = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof plugin.name !== 'string' || !NAME.test(plugin.name)) problems.push(`${where}: "name" must be a lower-case kebab-case string`);
  problems.push(...lifecycleProblems(plugin, where));
  const deps = plugin.dependencies;
  if (deps !== undefined && !(Array.isArray(deps) && deps.every((dep) => typeof dep === 'string'))) {
    problems.push(`${where}: "dependencies" must be an array of plugin names`);
  }
  const key = plugin.configKey;
  if (key !== undefined && key !== null && (typeof key !== 'string' || key === '')) problems.push(`${where}: "configKey" must be a non-empty string or null`);
  const schema = plugin.configSchema as { validate?: unknown } | undefined;
  if (schema !== undefined && typeof schema?.validate !== 'function') problems.push(`${where}: "configSchema" must be a yup schema (an object with validate())`);
  return problems;
}

/** A plugin has `create` or, in the older form, `setup` with `start`, `stop` and `reload` beside it. */
function lifecycleProblems(plugin: Record<string, unknown>, where: string): string[] {
  const hasCreate = plugin.create !== undefined;
  if (hasCreate && plugin.setup !== undefined) return [`${where}: has both "create" and "setup"; give one of them (see the plugin contract)`];
  if (!hasCreate && plugin.setup === undefined) return [`${where}: "create" must be a function (or, in the older form, "setup")`];
  const problems: string[] = [];
  const entry = hasCreate ? 'create' : 'setup';
  if (typeof plugin[entry] !== 'function') problems.push(`${where}: "${entry}" must be a function`);
  for (const hook of ['start', 'stop', 'reload'] as const) {
    if (plugin[hook] === undefined) continue;
    if (hasCreate) problems.push(`${where}: "${hook}" belongs in the lifecycle "create" returns, not on the plugin object`);
    else if (typeof plugin[hook] !== 'function') problems.push(`${where}: "${hook}" must be a function when given`);
  }
  const commands = plugin.commands;
  if (commands !== undefined && !(commands && typeof commands === 'object' && Object.values(commands).every((command) => typeof (command as { run?: unknown })?.run === 'function'))) {
    problems.push(`${where}: "commands" must map each command's name to an object with a run() function`);
  }
  return problems;
}

/** The config key a plugin reads: `configKey`, else its name; null when it reads none. */
export function sectionKeyOf(plugin: VigilPlugin<unknown>): string | null {
  return plugin.configKey === undefined ? plugin.name : plugin.configKey;
}

/**
 * Orders plugins so each comes after its dependencies, keeping the `plugins:` order wherever the
 * dependencies allow (Kahn's algorithm, always taking the earliest listed ready plugin).
 */
export function orderByDependencies<P extends { plugin: VigilPlugin<unknown> }>(items: readonly P[]): { ordered: P[]; problems: string[] } {
  const byName = new Map(items.map((item) => [item.plugin.name, item]));
  const problems: string[] = [];
  for (const { plugin } of items) {
    for (const dep of plugin.dependencies ?? []) {
      if (!byName.has(dep)) problems.push(`plugin "${plugin.name}" depends on "${dep}", which is not in plugins:`);
    }
  }
  if (problems.length > 0) return { ordered: [], problems };

  const ordered: P[] = [];
  const done = new Set<string>();
  const pending = [...items];
  while (pending.length > 0) {
    const index = pending.findIndex(({ plugin }) => (plugin.dependencies ?? []).every((dep) => done.has(dep)));
    if (index < 0) {
      problems.push(`plugins have circular dependencies: ${pending.map(({ plugin }) => plugin.name).join(', ')}`);
      break;
    }
    const [next] = pending.splice(index, 1);
    ordered.push(next!);
    done.add(next!.plugin.name);
  }
  return { ordered, problems };
}
