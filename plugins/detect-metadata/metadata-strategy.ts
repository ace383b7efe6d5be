import type { DetectionStrategy } from '../../core/kits/services/index.js';
import { ENDPOINTS_KEY, endpointsFromMetadata } from './endpoints-key.js';

/**
 * SBA's documented custom strategy: the instance says which endpoints it has, so nothing is
 * queried. Without the key (or a management URL) it yields nothing and the next strategy runs.
 */
export function metadataStrategy(): DetectionStrategy {
  return {
    name: 'detect-metadata',
    async detect(instance, signal) {
      signal.throwIfAborted();
      const registration = instance.registration;
      const listed = registration?.metadata[ENDPOINTS_KEY];
      if (!registration?.managementUrl || listed === undefined) return [];
      return endpointsFromMetadata(listed, registration.managementUrl);
    },
  };
}
