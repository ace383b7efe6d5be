import type { KernelConfig } from '../config/kernel-schema.js';
import type { Prepared } from './prepare.js';
import { sectionKeyOf } from './plugin-order.js';

/** What a reload did, one line per key: never a value, which may be a secret. */
export interface ReloadReport {
  /** Keys and sections now in effect. */
  readonly applied: string[];
  /** Changed keys that keep their running value until a restart. */
  readonly restart: string[];
  /** Sections a plugin refused to apply, with its reason; their old value stays. */
  readonly failed: string[];
}

/** Kernel keys applied while running; every other changed kernel key needs a restart. */
export const RELOADABLE_KERNEL_KEYS = ['log-level', 'metadata-keys-to-sanitize', 'shutdown-timeout', 'server', 'access'] as const;

/** One plugin section that differs from the running one. */
export interface SectionChange {
  readonly name: string;
  /** The section key, for messages. */
  readonly key: string;
  readonly config: unknown;
}

export interface ReloadPlan {
  /** Changed kernel keys that can be applied now. */
  readonly kernel: readonly (typeof RELOADABLE_KERNEL_KEYS)[number][];
  /** Changed plugin sections, of plugins loaded now and in the new config. */
  readonly sections: readonly SectionChange[];
  /** What changed and needs a restart (kernel keys, the plugin list). */
  readonly restart: readonly string[];
}

/**
 * Compares a freshly prepared config with the running one. The plugin list is compared by the
 * names it loads, in order, so writing out the default list changes nothing.
 */
export function planReload(settings: KernelConfig, running: ReadonlyMap<string, { readonly config: unknown; readonly rank: number }>, next: Prepared): ReloadPlan {
  const restart: string[] = [];
  const kernel: (typeof RELOADABLE_KERNEL_KEYS)[number][] = [];
  const keys = new Set([...Object.keys(settings), ...Object.keys(next.settings)]);
  keys.delete('plugins');
  for (const key of keys) {
    const before = (settings as Record<string, unknown>)[key];
    const after = (next.settings as Record<string, unknown>)[key];
    if (sameValue(before, after)) continue;
    if (!(RELOADABLE_KERNEL_KEYS as readonly string[]).includes(key)) restart.push(key);
  }
  for (const key of RELOADABLE_KERNEL_KEYS) if (!sameValue(settings[key], next.settings[key])) kernel.push(key);
  restart.sort();
  const listed = (entries: [string, number][]) => entries.sort((a, b) => a[1] - b[1]).map(([name]) => name).join(', ');
  const before = listed([...running].map(([name, item]) => [name, item.rank]));
  const after = listed(next.plugins.map((item) => [item.plugin.name, item.rank]));
  if (before !== after) restart.push(`plugins (running: ${before}; in the file: ${after})`);
  const sections: SectionChange[] = [];
  for (const item of next.plugins) {
    const current = running.get(item.plugin.name);
    if (!current || sameValue(current.config, item.config)) continue;
    sections.push({ name: item.plugin.name, key: sectionKeyOf(item.plugin) ?? item.plugin.name, config: item.config });
  }
  return { kernel, sections, restart };
}

/** Deep equality of validated config values (plain data), whatever the order of mapping keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((value, index) => sameValue(value, (b as unknown[])[index]));
  const left = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const right = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  return left.length === right.length && left.every((key) => sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
