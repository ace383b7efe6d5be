import { HttpError, defineToken, endpointUrl, type Instance, type Registry, type Services } from '../../core/plugin-api.js';
import type { SsrfGuard } from './ssrf.js';
import { buildTarget, endpointLocation, type ProxyPath, type Target } from './target-url.js';

/**
 * Optional: a plugin (the monitor) may offer to detect an instance's endpoints on demand, so the
 * first proxied call after registration need not wait for the next detection round.
 */
export interface EndpointDetector {
  ensureDetected(id: string): Promise<void>;
}

export const ENDPOINT_DETECTOR = defineToken<EndpointDetector>('vigil.endpoint-detector');

export interface TargetResolver {
  /** The checked target for `proxyPath` on this instance; 404 when the endpoint is not detected, 403 when SSRF protection refuses. */
  resolve(instance: Instance, proxyPath: ProxyPath): Promise<Target>;
}

export function targetResolver(instances: Registry, services: Services, guard: SsrfGuard | undefined): TargetResolver {
  return {
    async resolve(instance, proxyPath) {
      let url = endpointUrl(instance, proxyPath.endpointId);
      const detector = services.use(ENDPOINT_DETECTOR);
      if (url === undefined && detector && instance.registered) {
        // A failed detection is the detector's to log; here it just means "not found".
        await detector.ensureDetected(instance.id).catch(() => undefined);
        const fresh = instances.get(instance.id);
        url = fresh ? endpointUrl(fresh, proxyPath.endpointId) : undefined;
      }
      if (url === undefined) throw new HttpError(404, `Endpoint '${proxyPath.endpointId}' not found for instance ${instance.id}`);
      const registration = instance.registration;
      const endpoint = endpointLocation(url, registration?.managementUrl ?? registration?.healthUrl, proxyPath.endpointId);
      // Scheme first: SBA refuses a disallowed scheme with the SSRF error, before any other check.
      if (guard) await guard.check(endpoint);
      // buildTarget keeps the endpoint's origin, so the host checked above is the one called.
      return buildTarget(endpoint, proxyPath);
    },
  };
}
