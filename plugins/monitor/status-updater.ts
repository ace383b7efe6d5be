import { isDeepStrictEqual } from 'node:util';
import { CALL_FAILURE, changeStatusCommand, type Command, type Logger, type Ownership, type Registry, type StatusChangeDetection } from '../../core/plugin-api.js';
import { statusInfo, type Instance, type StatusInfo } from '../../core/domain/index.js';
import { isAbort } from './call-error.js';
import type { CancelToken } from './cancellation.js';
import type { CheckOutcome } from './check-outcome.js';
import type { FlapDamper } from './flap-damper.js';
import type { HealthGroupsCache } from './health-groups.js';
import type { InstanceCalls } from './instance-client.js';
import { healthFromResponse, statusFromError } from './health-mapping.js';
import type { OfflineRemoval } from './offline-removal.js';
import { recordResult } from './record.js';

export interface StatusUpdaterOptions {
  readonly registry: Registry;
  readonly ownership: Ownership;
  readonly client: InstanceCalls;
  readonly damper: FlapDamper;
  readonly detection: StatusChangeDetection;
  readonly maxBodyBytes: number;
  /** The cut-off over the whole status call, retries included (`statusCallCutOff`); 0 = none. */
  readonly callCutOff: number;
  /** Where the `groups` of each health body go. */
  readonly groups?: HealthGroupsCache;
  /** Asked after each check whether the instance has been OFFLINE long enough to go (`deregister-offline-after`). */
  readonly removal?: OfflineRemoval;
  readonly log: Logger;
}

/**
 * SBA cuts the whole status call, retries included, after |status-interval − 1 s| (reference
 * §4.3 Timeouts (b)): with the defaults a health endpoint that takes longer than 9 s is OFFLINE
 * before its next check is due, whatever `default-timeout` and the retries would allow, so a
 * hung instance is reported within one interval and its checks never pile up. A status-interval
 * of exactly 1 s gives 0, which means no extra cut (only the per-request time-out applies).
 * It counts from when the call is sent: time spent waiting for one of Vigil's own
 * connections to a busy origin says nothing about the instance.
 */
export function statusCallCutOff(statusInterval: number): number {
  return Math.abs(statusInterval - 1000);
}

/** SBA's StatusUpdater: calls the health URL, maps the answer, records a change. */
export class StatusUpdater {
  constructor(private options: StatusUpdaterOptions) {}

  /** A new detection mode or cut-off (reload), for the checks that start from now on. */
  reconfigure(changes: Pick<StatusUpdaterOptions, 'detection' | 'callCutOff'>): void {
    this.options = { ...this.options, ...changes };
  }

  readonly update = async (id: string, cancel: CancelToken): Promise<CheckOutcome> => {
    const { registry, client, callCutOff } = this.options;
    const instance = registry.get(id);
    if (!instance?.registered || !instance.registration) return 'gone';
    let status: StatusInfo;
    let outcome: CheckOutcome = 'ok';
    try {
      const response = await client.call(instance, instance.registration.healthUrl, {
        endpointId: 'health', maxBodyBytes: this.options.maxBodyBytes, cutOff: callCutOff > 0 ? callCutOff : undefined,
      }, cancel);
      const reading = healthFromResponse(response);
      status = reading.status;
      if (registry.get(id)?.registered) this.options.groups?.record(id, reading.groups);
    } catch (error) {
      // Aborted by shutdown or deregistration: that says nothing about the instance.
      if (cancel.cancelled || isAbort(error)) return 'skipped';
      status = isCutOff(error)
        ? statusInfo('OFFLINE', { message: `no health answer within ${callCutOff} ms (a status check is cut off after |status-interval - 1 s|)`, exception: 'ETIMEDOUT' })
        : statusFromError(error);
      outcome = 'error';
    }
    // Read again: the instance may have changed (or gone) while the call was running.
    const current = registry.get(id);
    if (!current?.registered) return 'gone';
    if (this.options.damper.admit(id, current.statusInfo.status, status.status)) {
      const event = await recordResult(registry, this.options.ownership, id, unlessOvertaken(instance, changeStatusCommand(status, this.options.detection)));
      if (event) this.options.log.debug(`status of ${id} is ${status.status}`, outcome === 'error' ? { reason: status.details.message } : undefined);
    }
    if (await this.options.removal?.consider(id)) return 'gone';
    return outcome;
  };
}

/**
 * `command`, unless a status was recorded after the call went out (`before` is the instance as it
 * was then). Only another writer can do that, above all another node: while ownership moves, two
 * nodes check an instance at once for up to a heartbeat, and the old owner's answer, older than
 * the new owner's, may arrive later. Recorded on top (the registry re-runs a command after a
 * version conflict) it would reverse what the instance did (UP → DOWN recorded as DOWN → UP, a
 * false recovery notified). It is dropped instead: the next check records whatever is true then.
 */
function unlessOvertaken(before: Instance, command: Command): Command {
  return (current) => current.statusTimestamp === before.statusTimestamp && isDeepStrictEqual(current.statusInfo, before.statusInfo) ? command(current) : null;
}

const isCutOff = (error: unknown): boolean => (error as { code?: unknown } | undefined)?.code === CALL_FAILURE.CUT_OFF;
