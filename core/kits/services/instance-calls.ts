import { defineToken, type HttpMethod, type Services } from '../../plugin-api.js';
import type { Instance } from '../../domain/index.js';

/**
 * An endpoint-detection strategy, contributed by `detect-*` plugins under `DETECTION_STRATEGY`
 * and run by the monitor in `plugins:` order: the first that yields endpoints wins.
 */
export interface DetectionStrategy {
  /** Shown in logs. */
  readonly name: string;
  /**
   * Finds the instance's endpoints, or returns an empty list to hand over to the next strategy.
   * `signal` aborts on timeout or shutdown. Throwing counts as "nothing found" and is logged.
   */
  detect(instance: Instance, signal: AbortSignal): Promise<readonly { id: string; url: string }[]>;
}

export const DETECTION_STRATEGY = defineToken<DetectionStrategy>('vigil.detection-strategy');

/**
 * What the monitor offers other plugins (the proxy) about detection: when a request needs an
 * endpoint of an instance whose endpoints were never detected, detect them now instead of
 * answering 404 until the next trigger. Provided by `monitor` under `ENDPOINT_DETECTOR`.
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

/** Options of one call to an instance. */
export interface InstanceRequestOptions {
  readonly method?: HttpMethod;
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborts the call (shutdown, deregistration). */
  readonly signal?: AbortSignal;
  /** The endpoint id the call is for (`health`, `info`, `actuator-index`, ...): picks timeout and retries. */
  readonly endpointId?: string;
  /** Bodies larger than this are cut off and the call fails; a lying instance cannot exhaust memory. */
  readonly maxBodyBytes?: number;
  /**
   * A limit in ms over all attempts together, counted from when the first is sent (time spent
   * waiting for a connection to the instance's origin does not count): past it the call fails
   * with code `ECUTOFF` and is not retried. Each attempt still has its own time-out.
   */
  readonly cutOff?: number;
}

export interface InstanceResponse {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Content-Type, or '' when none. */
  readonly contentType: string;
  readonly body: Buffer;
}

/**
 * Calls to instances, provided by the `monitor` plugin under `INSTANCE_HTTP`: one shared
 * keep-alive agent, the instance's credentials, the per-request timeout covering headers and
 * body (counted from when the request is sent, not while it waits for a connection), and
 * retries for reads. It rejects on connection failure or timeout (the error's `code` tells
 * which), and never for an HTTP status.
 */
export interface InstanceHttpClient {
  request(instance: Instance, url: string, options?: InstanceRequestOptions): Promise<InstanceResponse>;
}

export const INSTANCE_HTTP = defineToken<InstanceHttpClient>('vigil.instance-http');

/**
 * The instance client, looked up when it is needed rather than at setup: a missing provider then
 * fails that call with a message naming what is missing, instead of failing start-up.
 */
export function instanceHttpOf(services: Services): () => InstanceHttpClient {
  return () => {
    const client = services.use(INSTANCE_HTTP);
    if (!client) throw new Error(`no instance HTTP client (${INSTANCE_HTTP.key}): it is provided by the "monitor" plugin`);
    return client;
  };
}
