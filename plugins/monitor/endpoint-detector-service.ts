import { defineToken, type Instance } from '../../core/plugin-api.js';

/**
 * What the monitor offers other plugins (the proxy) about detection: when a request needs an
 * endpoint of an instance whose endpoints were never detected, detect them now instead of
 * answering 404 until the next trigger.
 */
export interface EndpointDetectorService {
  /**
   * Resolves with the instance after detection ran (or at once when endpoints are known, or
   * detection cannot run: no managementUrl, OFFLINE/UNKNOWN, no strategy loaded).
   * Undefined for an unknown id. Never rejects.
   */
  ensureDetected(id: string): Promise<Instance | undefined>;
}

export const ENDPOINT_DETECTOR = defineToken<EndpointDetectorService>('vigil.endpoint-detector');
