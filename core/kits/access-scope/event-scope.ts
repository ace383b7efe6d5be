import { ALL_APPLICATIONS, type AccessDecision, type ApplicationScope } from '../../plugin-api.js';
import type { Instance, InstanceEvent } from '../../domain/index.js';

/** The scope a request was decided with; every application when no check ran. */
export function scopeOf(req: { readonly access?: AccessDecision | undefined }): ApplicationScope {
  return req.access?.scope ?? ALL_APPLICATIONS;
}

/** What `EventApplications` reads of the registry. */
export interface HeldHistory {
  eventsOf(id: string): readonly InstanceEvent[];
  get(id: string): Instance | undefined;
}

/**
 * Which application each event belongs to: the name its instance was registered under when the
 * event was recorded (its newest registration at or before it), not the name it has now. So a
 * caller keeps seeing the events of an instance from while it was in one of its applications,
 * and never sees those from after it moved to another. Feed it events oldest first; one per list
 * or replay (it remembers each instance it met).
 */
export class EventApplications {
  readonly #names = new Map<string, string | undefined>();

  constructor(private readonly history: HeldHistory) {}

  of(event: InstanceEvent): string | undefined {
    if (event.type === 'REGISTERED' || event.type === 'REGISTRATION_UPDATED') {
      this.#names.set(event.instance, event.registration.name);
      return event.registration.name;
    }
    if (this.#names.has(event.instance)) return this.#names.get(event.instance);
    const name = this.#lookUp(event);
    this.#names.set(event.instance, name);
    return name;
  }

  /** The first event met of an instance: its registration before it, from its own history. */
  #lookUp(event: InstanceEvent): string | undefined {
    let name: string | undefined;
    for (const held of this.history.eventsOf(event.instance)) {
      if (held.seq > event.seq) break;
      if (held.type === 'REGISTERED' || held.type === 'REGISTRATION_UPDATED') name = held.registration.name;
    }
    // A history whose registration was dropped (compacted, trimmed) falls back to the current name.
    return name ?? this.history.get(event.instance)?.registration?.name;
  }

  /** The events of `events` (oldest first) that `scope` may see. */
  static filter(events: readonly InstanceEvent[], scope: ApplicationScope, history: HeldHistory): readonly InstanceEvent[] {
    if (scope.all) return events;
    const applications = new EventApplications(history);
    return events.filter((event) => {
      const name = applications.of(event);
      return name !== undefined && scope.allows(name);
    });
  }

  /** `filter` over events read in batches (oldest first), one `EventApplications` across them all. */
  static async *filterBatches(batches: AsyncIterable<readonly InstanceEvent[]>, scope: ApplicationScope, history: HeldHistory): AsyncIterable<readonly InstanceEvent[]> {
    if (scope.all) {
      yield* batches;
      return;
    }
    const applications = new EventApplications(history);
    for await (const batch of batches) {
      const shown = batch.filter((event) => {
        const name = applications.of(event);
        return name !== undefined && scope.allows(name);
      });
      if (shown.length > 0) yield shown;
    }
  }
}
