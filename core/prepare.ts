import { DEFAULT_PLUGINS } from '../config/defaults.js';
import { unitlessDurationWarnings } from '../config/duration-warnings.js';
import { interpolate } from '../config/interpolate.js';
import { migrateMovedKeys } from '../config/legacy-keys.js';
import { KERNEL_KEYS, kernelSchema, type KernelConfig } from '../config/kernel-schema.js';
import { loadConfigFile } from '../config/load.js';
import { didYouMean } from '../config/suggest.js';
import { validateSection } from '../config/validate.js';
import { ProblemsError, VigilError, messageOf } from './errors.js';
import type { VigilPlugin } from './plugin-api.js';
import { orderByDependencies, pluginShapeProblems, sectionKeyOf } from './plugin-order.js';
import { resolvePlugin, type BuiltinPlugins, type ResolvedPlugin } from './plugin-resolve.js';

export interface PrepareOptions {
  /** `--config FILE`; without it `registry.config.yaml` in `cwd`, if present. */
  readonly configFile?: string;
  /** A config given as an object instead of a file (tests, embedding). */
  readonly config?: Record<string, unknown>;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Values from CLI flags, by config key; they beat the file. */
  readonly overrides?: Record<string, unknown>;
  readonly builtins: BuiltinPlugins;
}

export interface PreparedPlugin {
  readonly resolved: ResolvedPlugin;
  readonly plugin: VigilPlugin<unknown>;
  /** The validated section. */
  readonly config: unknown;
  /** Position in `plugins:`; orders contributions. */
  readonly rank: number;
}

export interface Prepared {
  readonly settings: KernelConfig;
  /** Lines to log at start-up about keys that still work but moved. */
  readonly deprecations: readonly string[];
  /** Lines to log at start-up about values that are valid but likely not what was meant. */
  readonly warnings: readonly string[];
  /** In setup order: dependencies first, list order otherwise. */
  readonly plugins: readonly PreparedPlugin[];
  readonly filepath: string | null;
}

/**
 * Everything that can be checked without side effects (Caddy's validate step): the file, the
 * environment references, the kernel keys, each plugin and its section, unknown keys and the
 * dependency graph. All problems are collected and thrown together, one line each. This is all
 * `--check-config` runs.
 */
export async function prepare(options: PrepareOptions): Promise<Prepared> {
  const problems: string[] = [];
  const warnings: string[] = [];
  let filepath: string | null = null;
  let baseDir = options.cwd;
  let raw: Record<string, unknown>;
  if (options.config) {
    raw = options.config;
  } else {
    const file = await loadConfigFile(options.configFile, options.cwd);
    if ('problem' in file) throw new ProblemsError('ERR_CONFIG_INVALID', [file.problem]);
    ({ filepath, baseDir, raw } = file);
  }

  // Where a variable was unset, the value left behind would fail its check too: one problem is enough.
  const unset: string[] = [];
  const moved = migrateMovedKeys({ ...(interpolate(raw, options.env, problems, '', unset) as Record<string, unknown>), ...options.overrides });
  problems.push(...moved.problems);
  const merged = moved.config;
  const kernelPart = Object.fromEntries(Object.entries(merged).filter(([key]) => KERNEL_KEYS.includes(key)));
  const kernel = await validateSection(kernelSchema, kernelPart, '');
  if (!kernel.ok) problems.push(...kernel.problems);
  else warnings.push(...unitlessDurationWarnings(kernelSchema, kernelPart, ''));

  // The configured list counts even when another kernel key is invalid, so its problems show too.
  const listed = merged.plugins;
  const entries = Array.isArray(listed) ? listed.filter((entry): entry is string => typeof entry === 'string' && entry.trim() !== '').map((e) => e.trim())
    : [...DEFAULT_PLUGINS];
  const seenEntries = new Set<string>();
  const loaded: ResolvedPlugin[] = [];
  for (const entry of entries) {
    if (seenEntries.has(entry)) {
      problems.push(`plugins: "${entry}" is listed twice`);
      continue;
    }
    seenEntries.add(entry);
    try {
      const resolved = await resolvePlugin(entry, options.builtins, baseDir);
      const shape = pluginShapeProblems(resolved.plugin, entry);
      if (shape.length > 0) problems.push(...shape);
      else loaded.push(resolved);
    } catch (error) {
      problems.push(error instanceof VigilError ? error.message : `plugin "${entry}": ${messageOf(error)}`);
    }
  }

  const names = new Map<string, string>();
  for (const { plugin, entry } of loaded) {
    const other = names.get(plugin.name);
    if (other) problems.push(`plugins "${other}" and "${entry}" both call themselves "${plugin.name}"`);
    names.set(plugin.name, entry);
  }

  const knownKeys = new Set(KERNEL_KEYS);
  const prepared: PreparedPlugin[] = [];
  for (const resolved of loaded) {
    const config = await sectionOf(resolved.plugin, merged, problems, warnings);
    prepared.push({ resolved, plugin: resolved.plugin, config, rank: entries.indexOf(resolved.entry) });
    const key = sectionKeyOf(resolved.plugin);
    if (key) knownKeys.add(key);
  }
  // Sections of built-in plugins that are not loaded are still known keys, and checked for typos
  // (e.g. a `cors:` block kept in the file while `cors` is switched off).
  for (const [name, builtin] of Object.entries(options.builtins)) {
    if (!builtin.section || loaded.some((item) => item.source === 'builtin' && item.entry === name)) continue;
    knownKeys.add(builtin.section);
    if (merged[builtin.section] !== undefined) await sectionOf(await builtin.load(), merged, problems, []);
  }
  for (const key of Object.keys(merged)) {
    if (!knownKeys.has(key)) problems.push(`${key}: unknown key (not a kernel setting nor the section of a known plugin)${didYouMean(key, knownKeys)}`);
  }

  if (problems.length === 0) crossCheck(prepared, problems, warnings);
  const { ordered, problems: orderProblems } = orderByDependencies(prepared);
  problems.push(...orderProblems);
  const reported = problems.filter((problem) => !derivedFromUnset(problem, unset));
  if (reported.length > 0) throw new ProblemsError('ERR_CONFIG_INVALID', reported);
  return { settings: kernel.ok ? kernel.value : (undefined as never), plugins: ordered, filepath, deprecations: moved.deprecations, warnings };
}

async function sectionOf(plugin: VigilPlugin<unknown>, merged: Record<string, unknown>, problems: string[], warnings: string[]): Promise<unknown> {
  const key = sectionKeyOf(plugin);
  const section = key ? merged[key] : undefined;
  if (!plugin.configSchema) return section;
  const result = await validateSection(plugin.configSchema, section, key ?? plugin.name);
  if (result.ok) {
    warnings.push(...unitlessDurationWarnings(plugin.configSchema, section, key ?? plugin.name));
    return result.value;
  }
  problems.push(...result.problems.map((problem) => `plugin "${plugin.name}": ${problem}`));
  return undefined;
}

/**
 * A problem at a key whose value still holds an unset `${VAR}` (or inside it): the interpolation
 * already reported the variable, so "must be a number" or "not a valid URL" would only repeat it.
 */
function derivedFromUnset(problem: string, unset: readonly string[]): boolean {
  if (unset.length === 0 || problem.includes('environment variable')) return false;
  const path = problem.replace(/^plugin "[^"]*": /, '').split(': ')[0]!;
  return unset.some((key) => path === key || path.startsWith(`${key}.`) || path.startsWith(`${key}[`));
}

/** Each plugin's `crossCheck` of its section against the others' (only once every section is valid). */
function crossCheck(prepared: readonly PreparedPlugin[], problems: string[], warnings: string[]): void {
  const loaded = prepared.map(({ plugin, config }) => ({ name: plugin.name, dependencies: plugin.dependencies ?? [], config }));
  for (const { plugin, config } of prepared) {
    if (!plugin.crossCheck) continue;
    const result = plugin.crossCheck(config, loaded);
    problems.push(...result.problems.map((problem) => `plugin "${plugin.name}": ${problem}`));
    warnings.push(...result.warnings);
  }
}
