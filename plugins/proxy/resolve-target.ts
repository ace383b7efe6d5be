import { HttpError, type Registry, type Services } from '../../core/plugin-api.js';
import { ENDPOINT_DETECTOR, type EndpointDetectorService } from '../../core/kits/services/index.js';
import { endpointUrl, type Instance } from '../../core/domain/index.js';
import { buildTarget, endpointLocation, type ProxyPath, type Target } from './target-url.js';

export interface TargetResolver {
  /** The checked target for `proxyPath` on this instance; 404 when the endpoint is not detected. */
  resolve(instance: Instance, proxyPath: ProxyPath): Promise<Target>;
}

/**
 * Targets are always under a detected endpoint. A monitor (ENDPOINT_DETECTOR, optional) may
 * detect an instance's endpoints on demand, so the first proxied call after registration need
 * not wait for the next detection round. SSRF protection applies to the call itself, in the
 * agent the kernel's outbound policy made.
 */
export function targetResolver(registry: Registry, services: Services, timeoutMs: number): TargetResolver {
  return {
    async resolve(instance, proxyPath) {
      let endpoint = endpointOf(instance, proxyPath.endpointId);
      // Only an instance with nothing detected yet is worth a detection: asking again for every
      // unknown endpoint id would let callers make Vigil hammer the instance.
      const detector = instance.registered && instance.endpoints.length === 0 ? services.use(ENDPOINT_DETECTOR) : undefined;
      if (endpoint === undefined && detector) {
        await boundedDetection(detector, instance.id, timeoutMs);
        const fresh = registry.get(instance.id);
        endpoint = fresh ? endpointOf(fresh, proxyPath.endpointId) : undefined;
      }
      if (endpoint === undefined) throw new HttpError(404, `Endpoint '${proxyPath.endpointId}' not found for instance ${instance.id}`);
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
async function boundedDetection(detector: EndpointDetectorService, id: string, timeoutMs: number): Promise<void> {
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
