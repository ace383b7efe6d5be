/**
 * # The services kit (`vigil/services`)
 *
 * The services built-in plugins offer each other through `ctx.services`, which the kernel never
 * reads: `METRICS` (families for `GET /metrics`, rendered by `metrics`), `API_DESCRIPTION` (parts of
 * `GET /openapi.json`, merged by `openapi`), and what the `monitor` offers and asks for:
 * `DETECTION_STRATEGY` (contributed by `detect-*`), `INSTANCE_HTTP` (calls to instances),
 * `ENDPOINT_DETECTOR` (detection on demand, for the proxy) and `HEALTH_GROUPS`. A third-party
 * plugin that contributes or uses one imports the same token from here. The services the kernel
 * itself reads or fills (`EVENT_LOG`, `LEASES`, `READINESS`, ...) are in the plugin contract. The
 * kit uses only the plugin contract (`vigil/plugin`, `vigil/domain`).
 */
export {
  METRICS,
  type CounterFamily, type GaugeFamily, type HistogramFamily, type HistogramSample, type MetricFamily, type MetricLabels, type MetricSample,
} from './metrics.js';
export {
  API_DESCRIPTION, ERROR_RESPONSE, openApiPath, pathParameter,
  type ApiDescription, type OpenApiObject, type OperationKey, type PathItem,
} from './api-description.js';
export {
  DETECTION_STRATEGY, ENDPOINT_DETECTOR, INSTANCE_HTTP, instanceHttpOf,
  type DetectionStrategy, type EndpointDetectorService, type InstanceHttpClient, type InstanceRequestOptions, type InstanceResponse,
} from './instance-calls.js';
export { HEALTH_GROUPS, type HealthGroups } from './health-groups.js';
