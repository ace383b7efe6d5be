import type { Dispatcher } from 'undici';
import { HttpError, type Logger, type Outbound } from '../../core/plugin-api.js';
import type { ProxyConfig } from './config-schema.js';
import { Exchange } from './exchange.js';
import { FanOutSlots } from './fan-out-limits.js';
import { ignoredSet } from './headers.js';
import type { TargetResolver } from './resolve-target.js';

/** How long `close()` waits for in-flight calls before it tears their sockets down. */
const CLOSE_GRACE_MS = 1000;

/**
 * What the proxy routes share for one kernel: the settings, the target resolver and the one
 * undici Agent (keep-alive pools per instance origin). The agent exists between start and stop.
 */
export class ProxyRuntime {
  readonly ignored: ReadonlySet<string>;
  /** Parent of every in-flight exchange; aborted (cause `shutdown`) when the kernel stops. */
  readonly calls = new Exchange();
  /** The fan-outs running now, at most `max-concurrent-fan-outs`. */
  readonly fanOuts: FanOutSlots;
  #agent: Dispatcher | undefined;

  constructor(
    readonly config: ProxyConfig,
    readonly resolver: TargetResolver,
    readonly log: Logger,
    /** The kernel's outbound policy: makes the agent (SSRF protection, User-Agent) and picks credentials. */
    readonly outbound: Outbound,
  ) {
    this.ignored = ignoredSet(config['ignored-headers']);
    this.fanOuts = new FanOutSlots(config['max-concurrent-fan-outs']);
  }

  open(): void {
    this.#agent ??= this.outbound.createAgent({
      connect: { timeout: this.config.timeout },
      headersTimeout: this.config.timeout,
      // Deliberate: undici's default would cut an idle body after 300 s, ours is configured.
      bodyTimeout: this.config['body-idle-timeout'],
    });
  }

  /** The agent; 503 outside start..stop, when no call may begin. */
  dispatcher(): Dispatcher {
    if (!this.#agent || (this.#agent as Dispatcher & { closed?: boolean }).closed) throw new HttpError(503, 'the proxy is not running');
    return this.#agent;
  }

  /** Closes the agent; in-flight calls were already aborted through the kernel's signal. */
  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    if (!agent) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
    });
    try {
      if ((await Promise.race([agent.close(), grace])) === 'late') {
        this.log.warn('proxy calls still open at shutdown; closing their connections');
        await agent.destroy();
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
