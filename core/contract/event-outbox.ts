import type { EventBus } from '../bus.js';
import type { InstanceEventType } from '../store/types.js';
import { defineToken } from './tokens.js';

/**
 * One recorded event as work for whoever acts on changes (notifications): what happened and from
 * which status to which. `from` is the instance's previous recorded status, so it is the same on
 * every node of a cluster, whichever node hands the item out.
 */
export interface OutboxItem {
  readonly seq: number;
  readonly instance: string;
  readonly version: number;
  readonly type: InstanceEventType;
  readonly timestamp: string;
  /** The status before the event. */
  readonly from: string;
  /** The status after it. */
  readonly to: string;
  /**
   * Whether this node still holds the item, asked right before each external effect (a delivery
   * attempt): false once another node may have taken it over (this one was paused or cut off past
   * its claim). Then the handler sends nothing more for it and rejects, and the item's new holder
   * delivers it. Absent: always held (one process).
   */
  readonly held?: () => boolean;
}

/**
 * Every recorded event, handed out as work. With `cluster-redis` the item is written with the
 * event, atomically, and handed to one node of the cluster; a node killed before its handler
 * finished leaves the item to be claimed by another (at least once: duplicates only across a
 * crash). The kernel's default hands each event to this process's handlers as it is applied.
 */
export interface EventOutbox {
  /**
   * Calls `handler` for each item from now on. The returned promise says when the item is done
   * (delivered, or given up on for good): only then may a durable outbox forget it. Returns the
   * function that stops consuming.
   */
  consume(handler: (item: OutboxItem) => Promise<void>): () => void;
}

export const EVENT_OUTBOX = defineToken<EventOutbox>('vigil.event-outbox');

/** One process: each applied event is an item for this process's handlers at once; nothing is kept. */
export class LocalOutbox implements EventOutbox {
  constructor(private readonly bus: EventBus) {}

  consume(handler: (item: OutboxItem) => Promise<void>): () => void {
    return this.bus.on('instance.changed', ({ event, instance, previous }) => handler({
      seq: event.seq,
      instance: event.instance,
      version: event.version,
      type: event.type,
      timestamp: event.timestamp,
      from: previous.statusInfo.status,
      to: instance.statusInfo.status,
    }));
  }
}
