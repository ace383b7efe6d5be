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
  const matches = (wanted: Readonly<Record<string, string>>) =>
    Object.entries(metadata).some(([key, value]) => Object.hasOwn(wanted, key) && wanted[key] === value);
  const required = config['instances-metadata'];
  if (Object.keys(required).length > 0 && !matches(required)) return false;
  return !matches(config['ignored-instances-metadata']);
}
