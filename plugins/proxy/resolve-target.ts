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

export function targetResolver(instances: Registry, services: Services, guard: SsrfGuard | undefined, timeoutMs: number): TargetResolver {
  return {
    async resolve(instance, proxyPath) {
      let endpoint = endpointOf(instance, proxyPath.endpointId);
      // Only an instance with nothing detected yet is worth a detection: asking again for every
      // unknown endpoint id would let callers make Vigil hammer the instance.
      const detector = instance.registered && instance.endpoints.length === 0 ? services.use(ENDPOINT_DETECTOR) : undefined;
      if (endpoint === undefined && detector) {
        await boundedDetection(detector, instance.id, timeoutMs);
        const fresh = instances.get(instance.id);
        endpoint = fresh ? endpointOf(fresh, proxyPath.endpointId) : undefined;
      }
      if (endpoint === undefined) throw new HttpError(404, `Endpoint '${proxyPath.endpointId}' not found for instance ${instance.id}`);
      // Scheme first: SBA refuses a disallowed scheme with the SSRF error, before any other check.
      if (guard) await guard.check(endpoint);
      // buildTarget keeps the endpoint's origin, so the host checked above is the one called.
      return buildTarget(endpoint, proxyPath);
    },
  };
}

/**
 * Parsed endpoint URLs per Instance object. Instances are immutable (every change is a new
 * object), so an entry can never go stale and leaves with its instance; only detected endpoints
 * are kept, so unknown ids sent by callers add nothing. Saves two URL parses per proxied request.
 */
const locations = new WeakMap<Instance, Map<string, URL>>();

/** The endpoint's URL; relative hrefs (detection keeps them as given) resolve against the management URL. */
function endpointOf(instance: Instance, endpointId: string): URL | undefined {
  const known = locations.get(instance)?.get(endpointId);
  if (known) return known;
  const url = endpointUrl(instance, endpointId);
  if (url === undefined) return undefined;
  const registration = instance.registration;
  const endpoint = endpointLocation(url, registration?.managementUrl ?? registration?.healthUrl, endpointId);
  const cache = locations.get(instance) ?? new Map<string, URL>();
  cache.set(endpointId, endpoint);
  locations.set(instance, cache);
  return endpoint;
}

/** Waits for a detection at most `timeoutMs`; a failure or a late answer just means "not found". */
async function boundedDetection(detector: EndpointDetector, id: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  try {
    await Promise.race([detector.ensureDetected(id).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
