import type { Dispatcher } from 'undici';
import { ACTUATOR_ACCEPT, InFlight, turnSlot } from '../../core/kits/runtime/index.js';
import type { Instance } from '../../core/domain/index.js';
import { CALL_FAILURE, type Outbound } from '../../core/plugin-api.js';
import { type InstanceHttpClient, type InstanceRequestOptions, type InstanceResponse } from '../../core/kits/services/index.js';
import { InstanceCallError, toCallError } from './call-error.js';
import { Cancellation, type CancelToken } from './cancellation.js';
import { CollectingHandler } from './collect-response.js';
import { OriginGate, originOf } from './origin-gate.js';

/** Health and info bodies are small; a lying instance must not make Vigil buffer 100 MB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

// SBA retries only calls that change nothing on the instance (InstanceExchangeFilterFunctions).
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface InstanceClientOptions {
  readonly defaultTimeout: number;
  readonly defaultRetries: number;
  /** Per endpoint id (`monitor.timeout.<id>`). */
  readonly timeouts: Readonly<Record<string, number>>;
  /** Per endpoint id (`monitor.retries.<id>`). */
  readonly retries: Readonly<Record<string, number>>;
  readonly connectionsPerOrigin: number;
  /** The kernel's outbound policy: the agent, and credentials only for the instance's own origins. */
  readonly outbound: Outbound;
  /** Cancels every call when the monitor stops. */
  readonly shutdown?: CancelToken;
}

/** The options of a call the monitor makes itself: it cancels with a CancelToken, not a signal. */
export type CallOptions = Omit<InstanceRequestOptions, 'signal'>;

/** The monitor's own way in (the updaters): `request` without an AbortSignal to adapt. */
export interface InstanceCalls {
  call(instance: Instance, url: string, options?: CallOptions, cancel?: CancelToken): Promise<InstanceResponse>;
}

/** How often calls in flight are looked at for their deadline: a time-out fires up to this late. */
const SWEEP_MS = 50;

/**
 * One attempt in flight, cancelled by its deadline (the sweeper), by the caller or by shutdown;
 * `deadline` is when it times out (`performance.now()` ms; none while it waits for its origin).
 */
class Attempt extends Cancellation {
  deadline = Number.POSITIVE_INFINITY;
  /** Whether the deadline is the cut-off over all attempts rather than this attempt's time-out. */
  cut = false;
  timedOut = false;
}

/** A call's cut-off over all its attempts, counted from when the first was sent. */
interface CutOff {
  readonly ms: number;
  from: number | undefined;
}

/**
 * The one way Vigil calls instances (`INSTANCE_HTTP`): a shared keep-alive agent capped per
 * origin and made by the kernel's outbound policy (SSRF protection, User-Agent), the instance's
 * credentials (only for its own origins), a deadline over the whole exchange (an instance that
 * drips its body a byte a second still times out), a body size cap, and immediate retries for
 * reads. It rejects with an InstanceCallError for transport failures only, never for an HTTP status.
 */
export class InstanceClient implements InstanceHttpClient, InstanceCalls {
  readonly #agent: Dispatcher;
  /**
   * Every attempt in flight, so one listener on the shutdown token cancels them all. An
   * InFlight list rather than a Set, which would age every check into the old generation.
   */
  readonly #inFlight = new InFlight<Attempt>();
  /** Calls wait here for a connection to their origin, not in the agent's queue, so their time-outs start when they are sent. */
  readonly #gate: OriginGate;
  /**
   * One timer for every call's deadline, running while calls are in flight, instead of a
   * setTimeout per attempt: a timer armed and cleared per call, thousands of times a second,
   * made each check promote far more to the old generation (bench/REPORT.md).
   */
  #sweeper: NodeJS.Timeout | undefined;

  #options: InstanceClientOptions;

  constructor(options: InstanceClientOptions) {
    this.#options = options;
    this.#agent = options.outbound.createAgent({ connections: options.connectionsPerOrigin, keepAliveTimeout: 10_000 });
    this.#gate = new OriginGate(options.connectionsPerOrigin);
    // One listener for the client's lifetime rather than one per call, on a token that lives as
    // long as the client: whatever a long-lived token holds on to ages with it (and an AbortSignal,
    // which keeps a removed listener linked to the next one, would chain every finished call to the
    // next so that none dies young; bench/REPORT.md).
    options.shutdown?.onCancel(() => {
      for (const attempt of this.#inFlight.snapshot()) attempt.cancel();
    });
  }

  /** New time-outs and retries (reload); calls in flight keep theirs, no connection is touched. */
  reconfigure(limits: Pick<InstanceClientOptions, 'defaultTimeout' | 'defaultRetries' | 'timeouts' | 'retries'>): void {
    this.#options = { ...this.#options, ...limits };
  }

  /**
   * The contract's way in, for other plugins (the proxy, detection strategies): their AbortSignal
   * is listened to once per call, for the call's length, and only when one is given.
   */
  async request(instance: Instance, url: string, options: InstanceRequestOptions = {}): Promise<InstanceResponse> {
    const { signal } = options;
    if (!signal) return this.call(instance, url, options);
    const cancellation = new Cancellation();
    const cancel = () => cancellation.cancel();
    if (signal.aborted) cancellation.cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    try {
      return await this.call(instance, url, options, cancellation);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** A call cancelled by `cancel` (the monitor's checks): no AbortSignal anywhere on the way. */
  async call(instance: Instance, url: string, options: CallOptions = {}, cancel?: CancelToken): Promise<InstanceResponse> {
    const method = options.method ?? 'GET';
    const endpointId = options.endpointId ?? '';
    const attempts = READ_METHODS.has(method) ? 1 + (this.#options.retries[endpointId] ?? this.#options.defaultRetries) : 1;
    const headers = this.#headersFor(instance, url, options.headers);
    const timeout = this.#options.timeouts[endpointId] ?? this.#options.defaultTimeout;
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const cutOff: CutOff | undefined = options.cutOff ? { ms: options.cutOff, from: undefined } : undefined;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await this.#once(url, method, headers, timeout, maxBodyBytes, cancel, cutOff);
        // The caller handles the answer when the turn has room: hundreds of answers may arrive at once.
        await turnSlot();
        return response;
      } catch (error) {
        const failure = toCallError(error);
        // An abort is the caller's decision, an oversized body would only come again, and past the cut-off no time is left.
        const retryable = failure.code !== CALL_FAILURE.ABORTED && failure.code !== CALL_FAILURE.BODY_TOO_LARGE && failure.code !== CALL_FAILURE.CUT_OFF;
        if (attempt >= attempts || !retryable) throw failure;
      }
    }
  }

  /** Ends every connection; calls still running fail. */
  async close(): Promise<void> {
    this.#stopSweeping();
    await this.#agent.destroy();
  }

  /** Aborts the calls past their deadline; stops once nothing is in flight. */
  #sweep(): void {
    if (this.#inFlight.size === 0) {
      this.#stopSweeping();
      return;
    }
    const now = performance.now();
    for (const attempt of this.#inFlight.snapshot()) {
      if (!attempt.timedOut && now >= attempt.deadline) {
        attempt.timedOut = true;
        attempt.cancel();
      }
    }
  }

  #stopSweeping(): void {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #headersFor(instance: Instance, url: string, given: Readonly<Record<string, string>> | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(given ?? {})) headers[name.toLowerCase()] = value;
    headers.accept ??= ACTUATOR_ACCEPT;
    // The instance's own credentials win over anything a caller passed along; to another origin
    // none go at all, not even a caller's.
    const authorization = this.#options.outbound.authorizationFor(instance, url);
    if (authorization) headers.authorization = authorization;
    else if (!this.#options.outbound.isOwnOrigin(instance, url)) delete headers.authorization;
    return headers;
  }

  async #once(url: string, method: string, headers: Record<string, string>, timeout: number, maxBodyBytes: number, cancel: CancelToken | undefined, cutOff: CutOff | undefined): Promise<InstanceResponse> {
    // One cancellation per attempt: the deadline (headers AND body), the caller's token, shutdown.
    const attempt = new Attempt();
    if (this.#options.shutdown?.cancelled) attempt.cancel();
    // Called at once when the caller's token is already cancelled.
    const unsubscribe = cancel?.onCancel(() => attempt.cancel());
    const done = this.#inFlight.add(attempt);
    const origin = originOf(url);
    let admitted = false;
    try {
      if (attempt.cancelled) throw new InstanceCallError(CALL_FAILURE.ABORTED, 'the call was aborted');
      const waiting = this.#gate.enter(origin, attempt);
      if (waiting) await waiting;
      admitted = true;
      this.#startDeadline(attempt, timeout, cutOff);
      return await this.#dispatch(url, method, headers, maxBodyBytes, attempt);
    } catch (error) {
      if (attempt.timedOut && attempt.cut) throw new InstanceCallError(CALL_FAILURE.CUT_OFF, `no complete answer within ${cutOff!.ms} ms of the first attempt`, { cause: error });
      if (attempt.timedOut) throw new InstanceCallError('ETIMEDOUT', `no complete answer within ${timeout} ms`, { cause: error });
      if (attempt.cancelled) throw new InstanceCallError(CALL_FAILURE.ABORTED, 'the call was aborted', { cause: error });
      throw toCallError(error);
    } finally {
      if (admitted) this.#gate.leave(origin);
      unsubscribe?.();
      done();
    }
  }

  /** One exchange, collected by a dispatch handler; cancelling `attempt` cancels it. */
  #dispatch(url: string, method: string, headers: Record<string, string>, maxBodyBytes: number, attempt: CancelToken): Promise<InstanceResponse> {
    const { protocol, origin, pathname, search } = new URL(url);
    // As undici's request() refuses them (the registration and detection only let http(s) URLs through).
    if (protocol !== 'http:' && protocol !== 'https:') throw new InstanceCallError('UND_ERR_INVALID_ARG', `not an http(s) URL: ${protocol}`);
    return new Promise<InstanceResponse>((resolve, reject) => {
      const handler = new CollectingHandler(maxBodyBytes, (response) => {
        unsubscribe();
        resolve(response);
      }, (error) => {
        unsubscribe();
        reject(error);
      });
      // Called at once when the attempt is already cancelled: the handler then refuses the call as it starts.
      const unsubscribe = attempt.onCancel(() => handler.cancel(new InstanceCallError(CALL_FAILURE.ABORTED, 'the call was aborted')));
      this.#agent.dispatch({ origin, path: pathname + search, method: method as Dispatcher.HttpMethod, headers }, handler);
    });
  }

  /** The attempt is about to be sent: its time-out, or the call's cut-off when that comes first, counts from now. */
  #startDeadline(attempt: Attempt, timeout: number, cutOff: CutOff | undefined): void {
    const now = performance.now();
    attempt.deadline = now + timeout;
    if (cutOff) {
      cutOff.from ??= now;
      const cut = cutOff.from + cutOff.ms;
      if (cut <= attempt.deadline) {
        attempt.deadline = cut;
        attempt.cut = true;
      }
      // A retry that waited for its origin past the cut-off is not sent at all (the caller turns this into ECUTOFF).
      if (cut <= now) {
        attempt.timedOut = true;
        throw new Error('past the cut-off before it was sent');
      }
    }
    if (!this.#sweeper) {
      this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
      this.#sweeper.unref();
    }
  }
}
