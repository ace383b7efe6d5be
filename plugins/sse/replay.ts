import type { InstanceEvent } from '../../core/domain/index.js';
import { ALL_APPLICATIONS, type ApplicationScope, type JsonViews, type Registry } from '../../core/plugin-api.js';
import { EventApplications } from '../../core/kits/access-scope/index.js';
import { frame, type Frame } from './frames.js';
import type { Topic } from './topic.js';

export interface Replayed {
  readonly seq: number;
  readonly frame: Frame;
}

/**
 * The frames a client reconnecting after `lastEventId` missed, from the held history, oldest first.
 *
 * - An id the registry did not issue comes from an earlier run of the server (each run numbers
 *   its events above every earlier run's), so everything held is new to that client and is replayed.
 * - Events already compacted or dropped from the history cannot be replayed; that gap is the
 *   history's bound, not the stream's.
 * - Per-instance snapshot streams get one snapshot, the instance as it is now, under the `seq` of
 *   its newest event, when anything of it was missed.
 * - Application streams get one snapshot per affected application, not one per missed event: a
 *   snapshot is the application as it is now, so older ones in between would be stale copies of
 *   it. Each goes out with the `seq` of the last missed event that touched it, in that order, so
 *   ids stay increasing and resuming from any of them still covers the rest.
 */
export function replayFrames(topic: Topic, lastEventId: number, registry: Registry, views: JsonViews,
  scope: ApplicationScope = ALL_APPLICATIONS, earlier?: EarlierEvents): Replayed[] {
  const since = registry.resumePoint(lastEventId);
  // A scoped subscriber is replayed only the events of its applications, as they were then.
  const visible = (events: readonly InstanceEvent[]) => EventApplications.filter(events, scope, registry);
  switch (topic.kind) {
    case 'events':
      return visible(missedEvents(since, registry, earlier)).map((event) => ({ seq: event.seq, frame: frame(event.seq, views.event(event)) }));
    case 'instance':
      // The whole history is filtered, so the registration an event came under is at hand.
      return visible(historyOf(topic.id, registry, earlier)).filter((event) => event.seq > since)
        .map((event) => ({ seq: event.seq, frame: frame(event.seq, views.event(event)) }));
    case 'instance-snapshots': {
      // One snapshot is the instance as it is now: older ones in between would be stale copies.
      const last = historyOf(topic.id, registry, earlier).at(-1);
      const instance = registry.get(topic.id);
      if (!last || last.seq <= since || !instance) return [];
      if (!scope.all && !scope.allows(instance.registration?.name ?? '')) return [];
      return [{ seq: last.seq, frame: frame(last.seq, views.instance(instance)) }];
    }
    case 'applications':
      return applicationReplay(missedEvents(since, registry, earlier), registry, views, scope);
  }
}

/**
 * What a resumed stream missed that this node no longer holds in memory (a cluster node holds
 * the newest events and the histories of some instances; the rest is in Redis), read before the
 * stream joins the fan-out: the events after the client's id up to `upTo` (for a stream of one
 * instance, its whole history up to `upTo`); `replayFrames` takes those after `upTo` from memory.
 * Undefined when memory holds all it missed.
 */
export interface EarlierEvents {
  readonly upTo: number;
  readonly events: readonly InstanceEvent[];
}

export async function earlierEvents(topic: Topic, lastEventId: number, registry: Registry): Promise<EarlierEvents | undefined> {
  const since = registry.resumePoint(lastEventId);
  if (since >= registry.completeAfter) return undefined;
  const events: InstanceEvent[] = [];
  let after = since;
  let first = true;
  // Read until memory reaches back to where the reading ended (it moves on while Redis answers).
  while (after < registry.completeAfter) {
    const upTo = registry.lastSeq;
    if (topic.kind === 'events' || topic.kind === 'applications') {
      for await (const batch of registry.readEvents(after, upTo)) events.push(...batch);
    } else {
      // One instance: its history from the start, so a scoped replay knows what it was registered as.
      const from = first ? -Infinity : after;
      for (const event of await registry.readEventsOf(topic.id)) if (event.seq > from && event.seq <= upTo) events.push(event);
    }
    after = upTo;
    first = false;
  }
  return { upTo: after, events };
}

function missedEvents(since: number, registry: Registry, earlier: EarlierEvents | undefined): readonly InstanceEvent[] {
  if (!earlier) return registry.eventsSince(since);
  return earlier.events.concat(registry.eventsSince(earlier.upTo));
}

/** The history of one instance as known here: what was read from Redis, then what memory holds after it. */
function historyOf(id: string, registry: Registry, earlier: EarlierEvents | undefined): readonly InstanceEvent[] {
  if (!earlier) return registry.eventsOf(id);
  return earlier.events.concat(registry.eventsOf(id).filter((event) => event.seq > earlier.upTo));
}

function applicationReplay(missed: readonly InstanceEvent[], registry: Registry, views: JsonViews, scope: ApplicationScope): Replayed[] {
  // Insertion order of a Map is kept on re-insert only after delete: that yields "order of last touch".
  const lastTouch = new Map<string, number>();
  for (const event of missed) {
    for (const name of namesTouchedBy(event, registry)) {
      if (!scope.all && !scope.allows(name)) continue;
      lastTouch.delete(name);
      lastTouch.set(name, event.seq);
    }
  }
  return [...lastTouch].map(([name, seq]) => ({ seq, frame: frame(seq, views.application(registry.application(name))) }));
}

/**
 * The application names a held event concerns: the name a registration event carries and the
 * instance's current one (they differ when it was re-registered under another name later).
 */
export function namesTouchedBy(event: InstanceEvent, registry: Registry): string[] {
  const names: string[] = [];
  if (event.type === 'REGISTERED' || event.type === 'REGISTRATION_UPDATED') names.push(event.registration.name);
  const current = registry.get(event.instance)?.registration?.name;
  if (current !== undefined && !names.includes(current)) names.push(current);
  return names;
}
