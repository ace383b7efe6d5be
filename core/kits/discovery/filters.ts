import type { DiscoveryConfig } from './config.js';

/**
 * Spring's `PatternMatchUtils.simpleMatch`, which SBA's discovery uses on lower-cased names: `*`
 * matches any run of characters (also none), everything else matches itself.
 */
export function simpleMatch(pattern: string, value: string): boolean {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    const source = pattern.toLowerCase().split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
    compiled = new RegExp(`^${source}$`, 's');
    // Patterns come from config, so the cache stays as small as the sections that name them.
    compiledPatterns.set(pattern, compiled);
  }
  return compiled.test(value.toLowerCase());
}

const compiledPatterns = new Map<string, RegExp>();

/** SBA's `shouldRegisterService`: listed by `services` and not by `ignored-services`. */
export function wantsService(config: Pick<DiscoveryConfig, 'services' | 'ignored-services'>, name: string): boolean {
  return config.services.some((pattern) => simpleMatch(pattern, name))
    && !config['ignored-services'].some((pattern) => simpleMatch(pattern, name));
}

/**
 * SBA's `shouldRegisterInstanceBasedOnMetadata`: with `instances-metadata` set, one of the
 * instance's pairs must equal one of its entries; none may equal an `ignored-instances-metadata` one.
 */
export function wantsInstance(config: Pick<DiscoveryConfig, 'instances-metadata' | 'ignored-instances-metadata'>, metadata: Readonly<Record<string, string>>): boolean {
  const required = config['instances-metadata'];
  if (!isEmpty(required) && !anyPair(metadata, required)) return false;
  return !anyPair(metadata, config['ignored-instances-metadata']);
}

// Loops rather than Object.entries: this runs for every listed instance, often 20,000 a run.
function anyPair(metadata: Readonly<Record<string, string>>, wanted: Readonly<Record<string, string>>): boolean {
  for (const key in wanted) if (Object.hasOwn(metadata, key) && Object.hasOwn(wanted, key) && metadata[key] === wanted[key]) return true;
  return false;
}

function isEmpty(map: Readonly<Record<string, string>>): boolean {
  for (const _key in map) return false;
  return true;
}
