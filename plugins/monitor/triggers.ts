import type { PluginBus, Registry } from '../../core/plugin-api.js';
import type { IntervalCheck } from './interval-check.js';

export interface Checks {
  readonly status: IntervalCheck;
  readonly info: IntervalCheck;
  /** Absent when no detection strategy is loaded. */
  readonly detection: IntervalCheck | undefined;
}

/**
 * Which recorded events start which check, as SBA's StatusUpdateTrigger, EndpointDetectionTrigger
 * and InfoUpdateTrigger wire them (reference §4.1), plus `instances.refresh-requested`.
 * Returns the function that unsubscribes everything.
 */
export function subscribeTriggers(bus: PluginBus, registry: Registry, checks: Checks, forget: (id: string) => void): () => void {
  const offChanged = bus.on('instance.changed', ({ event }) => {
    const id = event.instance;
    switch (event.type) {
      case 'REGISTERED':
        checks.status.now(id);
        break;
      case 'REGISTRATION_UPDATED':
        checks.status.now(id);
        checks.detection?.now(id);
        checks.info.now(id);
        break;
      case 'STATUS_CHANGED':
        checks.detection?.now(id);
        checks.info.now(id);
        break;
      case 'ENDPOINTS_DETECTED':
        checks.info.now(id);
        break;
      case 'DEREGISTERED':
        // Monitoring stops for real: running calls are aborted and the id leaves every schedule.
        checks.status.remove(id);
        checks.info.remove(id);
        checks.detection?.remove(id);
        forget(id);
        break;
      case 'INFO_CHANGED':
        break;
    }
  });
  // POST /applications: every instance is checked and detected again, right now.
  const offRefresh = bus.on('instances.refresh-requested', () => {
    for (const instance of registry.list()) {
      checks.status.now(instance.id);
      checks.detection?.now(instance.id);
    }
  });
  return () => {
    offChanged();
    offRefresh();
  };
}
