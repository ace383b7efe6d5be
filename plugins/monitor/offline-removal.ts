import { StoreUnavailableError, type Logger, type Registry } from '../../core/plugin-api.js';

/**
 * `deregister-offline-after`: an instance OFFLINE without a break for this long is deregistered
 * by the monitor (a DEREGISTERED event like any other, and a log line saying why), so pods that
 * died without deregistering do not stay in the registry for ever (SBA #3276). "Without a break"
 * is the instance's status timestamp, which moves only when the status string does. Instances a
 * discovery source manages are left to it: it removes them when its source does. 0 turns it off.
 * Asked after each status check, by the node that owns the instance.
 */
export class OfflineRemoval {
  constructor(private afterMs: number, private readonly registry: Registry, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  reconfigure(afterMs: number): void {
    this.afterMs = afterMs;
  }

  /** Deregisters `id` when it has been OFFLINE for `afterMs`; true when it did. */
  async consider(id: string): Promise<boolean> {
    if (this.afterMs <= 0) return false;
    const instance = this.registry.get(id);
    if (!instance?.registered || instance.statusInfo.status !== 'OFFLINE' || instance.registration?.source === 'discovery') return false;
    const since = Date.parse(instance.statusTimestamp);
    if (Number.isNaN(since) || this.now() - since < this.afterMs) return false;
    try {
      if (!(await this.registry.deregister(id))) return false;
    } catch (error) {
      if (error instanceof StoreUnavailableError) return false;
      throw error;
    }
    const name = (instance.registration?.name ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 200);
    this.log.info(`deregistered ${name} (${id}): OFFLINE since ${instance.statusTimestamp}, longer than monitor.deregister-offline-after (${spoken(this.afterMs)})`);
    return true;
  }
}

/** `90 s`, `10 min`, `2 h`: the setting as an operator reads it. */
function spoken(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
