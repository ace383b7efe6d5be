import type { Ownership, PluginBus, Registry } from '../../core/plugin-api.js';
import type { Check } from './check-outcome.js';
import type { IntervalCheck } from './interval-check.js';

export interface Checks {
  readonly status: IntervalCheck;
  readonly info: IntervalCheck;
  /** Absent when no detection strategy is loaded. */
  readonly detection: IntervalCheck | undefined;
}

/**
 * `check`, made only while this node owns the instance. Ownership can end between two ticks before
 * anything says so (a node whose place in a cluster lapsed owns nothing from that instant on, and
 * hears of it from its own timer, which a busy loop may run late): a call made then would be a
 * second node checking the same instance.
 */
export function whileOwned(ownership: Ownership, check: Check): Check {
  return (id, cancel) => (ownership.owns(id) ? check(id, cancel) : Promise.resolve('skipped'));
}

/** Stops every check of one instance, aborting the running ones. */
function removeEverywhere(checks: Checks, id: string): void {
  checks.status.remove(id);
  checks.info.remove(id);
  checks.detection?.remove(id);
}

/**
 * Which recorded events start which check, as SBA's StatusUpdateTrigger, EndpointDetectionTrigger
 * and InfoUpdateTrigger wire them (reference §4.1), plus `instances.refresh-requested`. Only the
 * instances this node owns are checked; when ownership or the whole state changes, instances
 * taken over join the cadence (checked at their next phase point) and those lost leave it.
 * Returns the function that unsubscribes everything.
 */
export function subscribeTriggers(bus: PluginBus, registry: Registry, ownership: Ownership, checks: Checks, forget: (id: string) => void): () => void {
  const offChanged = bus.on('instance.changed', ({ event }) => {
    const id = event.instance;
    if (!ownership.owns(id)) return;
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
        removeEverywhere(checks, id);
        forget(id);
        break;
      case 'INFO_CHANGED':
        break;
    }
  });
  // POST /applications: every instance is checked and detected again, right now (by its owner).
  const offRefresh = bus.on('instances.refresh-requested', () => {
    for (const instance of registry.list()) {
      if (!ownership.owns(instance.id)) continue;
      checks.status.now(instance.id);
      checks.detection?.now(instance.id);
    }
  });
  const reconcile = (lostContactSince?: number) => {
    const registered = new Set<string>();
    for (const instance of registry.list()) {
      registered.add(instance.id);
      if (!ownership.owns(instance.id)) removeEverywhere(checks, instance.id);
      else if (!checks.status.has(instance.id)) {
        checks.status.adopt(instance.id, lostContactSince);
        checks.info.adopt(instance.id);
        checks.detection?.adopt(instance.id);
      }
    }
    for (const id of checks.status.ids()) {
      if (!registered.has(id)) {
        removeEverywhere(checks, id);
        forget(id);
      }
    }
  };
  const offOwnership = bus.on('instances.ownership-changed', ({ lostContactSince }) => reconcile(lostContactSince));
  const offReloaded = bus.on('instances.reloaded', () => reconcile());
  return () => {
    offChanged();
    offRefresh();
    offOwnership();
    offReloaded();
  };
}
