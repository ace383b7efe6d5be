import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nearestName } from '../config/suggest.js';
import { VigilError, messageOf } from './errors.js';
import type { VigilPlugin } from './plugin-api.js';

/** A built-in plugin, imported only when a config names it or has its section. */
export type PluginLoader = () => Promise<VigilPlugin<unknown>>;

export interface BuiltinPlugin {
  /** The config key the plugin reads (its `configKey`), known without importing it; null for none. */
  readonly section: string | null;
  /** The CLI commands the plugin adds (its `commands`), known without importing it. */
  readonly commands?: readonly string[];
  readonly load: PluginLoader;
}

export type BuiltinPlugins = Readonly<Record<string, BuiltinPlugin>>;

export interface ResolvedPlugin {
  /** The `plugins:` entry as written. */
  readonly entry: string;
  readonly plugin: VigilPlugin<unknown>;
  readonly source: 'builtin' | 'path' | 'package';
  /** The file it came from, or `builtin:<name>`. */
  readonly location: string;
}

const PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export function isPathEntry(entry: string): boolean {
  return entry.startsWith('./') || entry.startsWith('../') || isAbsolute(entry) || entry === '.' || entry === '..';
}

/**
 * Turns a `plugins:` entry into a plugin object (verdaccio's three forms): a built-in name, a path
 * relative to the config file, or an npm package. "Not found" and "found but broken" (e.g. one of
 * its own dependencies is missing) are different errors, because the fixes differ.
 */
export async function resolvePlugin(entry: string, builtins: BuiltinPlugins, baseDir: string): Promise<ResolvedPlugin> {
  const builtin = Object.hasOwn(builtins, entry) ? builtins[entry] : undefined;
  if (builtin) return { entry, plugin: await builtin.load(), source: 'builtin', location: `builtin:${entry}` };

  let file: string | undefined;
  let source: ResolvedPlugin['source'];
  if (isPathEntry(entry)) {
    source = 'path';
    file = fileOf(resolve(baseDir, entry));
    if (!file) throw new VigilError('ERR_PLUGIN_NOT_FOUND', `plugin "${entry}": no file or package folder at ${resolve(baseDir, entry)}`);
  } else {
    source = 'package';
    // A typo of a built-in is answered with the built-in, never with a package to install: a
    // package of that name could be anyone's (typo-squatting). One that is installed still loads.
    const meant = nearestName(entry, Object.keys(builtins));
    const installed = PACKAGE_NAME.test(entry) ? findPackage(entry, baseDir) : undefined;
    if (meant && !installed) {
      throw new VigilError('ERR_PLUGIN_NOT_FOUND',
        `plugin "${entry}": not a built-in plugin; did you mean "${meant}"? (a plugin of another name loads from ./path or an installed npm package)`);
    }
    if (!PACKAGE_NAME.test(entry)) {
      throw new VigilError('ERR_PLUGIN_NOT_FOUND',
        `plugin "${entry}": not a built-in plugin (${Object.keys(builtins).join(', ')}), not a path (start it with ./) and not a valid npm package name`);
    }
    file = installed;
    if (!file) {
      throw new VigilError('ERR_PLUGIN_NOT_FOUND',
        `plugin "${entry}": not a built-in plugin (${Object.keys(builtins).join(', ')}) and no npm package of that name is installed (npm install ${entry})`);
    }
  }

  let module: unknown;
  try {
    module = await import(pathToFileURL(file).href);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND';
    throw new VigilError('ERR_PLUGIN_BROKEN',
      `plugin "${entry}": ${file} was found but ${missing ? 'one of its own dependencies is missing' : 'failed to load'}: ${messageOf(error).split('\n')[0]}`,
      { cause: error });
  }
  return { entry, plugin: pluginExport(module), source, location: file };
}

/** The plugin object of a module: its default export (ESM, or CJS `module.exports`), else `plugin`. */
function pluginExport(module: unknown): VigilPlugin<unknown> {
  const record = module as Record<string, unknown>;
  let value = record.default ?? record.plugin ?? module;
  // CJS compiled from ESM: module.exports = { __esModule: true, default: plugin }
  if (value && typeof value === 'object' && 'default' in value && !('create' in value) && !('setup' in value)) value = (value as Record<string, unknown>).default;
  return value as VigilPlugin<unknown>;
}

/** A file as is, or a package folder through its package.json (`exports["."]`, `main`, index.js). */
function fileOf(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  if (!statSync(path).isDirectory()) return path;
  const manifest = join(path, 'package.json');
  if (existsSync(manifest)) {
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown; main?: string };
    const target = exportTarget(pkg.exports) ?? pkg.main;
    if (target) return fileOf(resolve(path, target));
  }
  const index = join(path, 'index.js');
  return existsSync(index) ? index : undefined;
}

function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === 'string') return exports;
  if (!exports || typeof exports !== 'object') return undefined;
  const record = exports as Record<string, unknown>;
  const root = '.' in record ? record['.'] : record;
  if (typeof root === 'string') return root;
  if (root && typeof root === 'object') {
    const conditions = root as Record<string, unknown>;
    for (const condition of ['import', 'node', 'default', 'require']) {
      const target = exportTarget(conditions[condition]);
      if (target) return target;
    }
  }
  return undefined;
}

/** Looks in node_modules folders from the config's folder up, then from Vigil's own install up. */
function findPackage(name: string, baseDir: string): string | undefined {
  const starts = [baseDir, dirname(new URL(import.meta.url).pathname)];
  for (const start of starts) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return fileOf(candidate);
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}
