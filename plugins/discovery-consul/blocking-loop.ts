import { messageOf, type Logger } from '../../core/plugin-api.js';

export interface Blocking {
  stop(): void;
}

/** After an error the query is asked again after this, doubling up to the maximum. */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

/**
 * One Consul blocking query, asked again and again until `parent` aborts or `stop()`, following
 * https://developer.hashicorp.com/consul/api-docs/features/blocking:
 * - each query carries the `X-Consul-Index` of the previous answer and is re-issued at once;
 * - an answer with the same index is a wake-up without a change (the wait ran out): not reported;
 * - an index that went backwards (Consul's state was restored or rebuilt) resets it to 0, so the
 *   next query answers at once with the new state;
 * - an index that is not above 0 is taken as 1, so a broken answer cannot make it spin.
 * `onAnswer` gets every answer that may carry a change; errors are retried with a backoff.
 */
export function blockingLoop<T>(
  what: string,
  ask: (index: number, signal: AbortSignal) => Promise<{ entries: T; index: number }>,
  onAnswer: (entries: T) => void,
  parent: AbortSignal,
  log: Logger,
): Blocking {
  const controller = new AbortController();
  const signal = AbortSignal.any([parent, controller.signal]);
  const run = async () => {
    let index = 0;
    let failures = 0;
    while (!signal.aborted) {
      let answer: { entries: T; index: number };
      try {
        answer = await ask(index, signal);
      } catch (error) {
        if (signal.aborted) return;
        failures += 1;
        const message = `watching ${what} failed (asking again in ${retryMs(failures)} ms): ${messageOf(error)}`;
        if (failures === 1) log.warn(message);
        else log.debug(message);
        await sleep(retryMs(failures), signal);
        continue;
      }
      if (failures > 0) log.info(`watching ${what} again`);
      failures = 0;
      const next = answer.index > 0 ? answer.index : 1;
      if (next === index) continue;
      index = next < index ? 0 : next;
      onAnswer(answer.entries);
    }
  };
  void run();
  return { stop: () => controller.abort() };
}

function retryMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
