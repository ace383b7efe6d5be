import { changeStatusCommand, type InstanceHttpClient, type Logger, type Registry, type StatusChangeDetection, type StatusInfo } from '../../core/plugin-api.js';
import { isAbort } from './call-error.js';
import type { CheckOutcome } from './check-outcome.js';
import type { FlapDamper } from './flap-damper.js';
import { statusFromError, statusFromResponse } from './health-mapping.js';

export interface StatusUpdaterOptions {
  readonly registry: Registry;
  readonly client: InstanceHttpClient;
  readonly damper: FlapDamper;
  readonly detection: StatusChangeDetection;
  readonly maxBodyBytes: number;
  readonly log: Logger;
}

/** SBA's StatusUpdater: calls the health URL, maps the answer, records a change. */
export class StatusUpdater {
  constructor(private readonly options: StatusUpdaterOptions) {}

  readonly update = async (id: string, signal: AbortSignal): Promise<CheckOutcome> => {
    const { registry, client } = this.options;
    const instance = registry.get(id);
    if (!instance?.registered || !instance.registration) return 'gone';
    let status: StatusInfo;
    let outcome: CheckOutcome = 'ok';
    try {
      const response = await client.request(instance, instance.registration.healthUrl, { endpointId: 'health', signal, maxBodyBytes: this.options.maxBodyBytes });
      status = statusFromResponse(response);
    } catch (error) {
      // Aborted by shutdown or deregistration: that says nothing about the instance.
      if (signal.aborted || isAbort(error)) return 'skipped';
      status = statusFromError(error);
      outcome = 'error';
    }
    // Read again: the instance may have changed (or gone) while the call was running.
    const current = registry.get(id);
    if (!current?.registered) return 'gone';
    if (this.options.damper.admit(id, current.statusInfo.status, status.status)) {
      const event = registry.apply(id, changeStatusCommand(status, this.options.detection));
      if (event) this.options.log.debug(`status of ${id} is ${status.status}`, outcome === 'error' ? { reason: status.details.message } : undefined);
    }
    return outcome;
  };
}
