import type { ServerResponse } from 'node:http';
import { ALL_APPLICATIONS, HttpError, type ApplicationScope, type InstanceChange, type JsonViews, type Logger, type Registry } from '../../core/plugin-api.js';
import { EventApplications } from '../../core/kits/access-scope/index.js';
import type { Instance, InstanceEvent } from '../../core/domain/index.js';
import { PING, frame, joinFrames, type Frame } from './frames.js';
import { namesTouchedBy, replayFrames, type EarlierEvents } from './replay.js';
import { SubscriberStream } from './stream.js';
import { describeTopic, type Topic } from './topic.js';

export interface HubOptions {
  readonly instances: Registry;
  readonly views: JsonViews;
  readonly log: Logger;
  readonly maxBufferedBytes: number;
}

/**
 * Fans every recorded event out to the open streams. Built for many subscribers: each event is
 * serialised and encoded once per stream kind and the same bytes are written to every match; per-instance
 * subscribers (of events or of snapshots) are indexed by id so an event never scans unrelated ones; writes never await, so
 * one slow socket cannot hold up the rest; one timer pings them all.
 */
export class StreamHub {
  /** Every open stream, for pings and shutdown. */
  readonly #streams = new Set<SubscriberStream>();
  readonly #events = new Set<SubscriberStream>();
  readonly #byInstance = new Map<string, Set<SubscriberStream>>();
  readonly #snapshotsByInstance = new Map<string, Set<SubscriberStream>>();
  readonly #applications = new Set<SubscriberStream>();
  #pingTimer: NodeJS.Timeout | undefined;
  #closed = false;
  /** The newest `seq` fanned out (or passed over while nobody listened). */
  #published: number;

  constructor(private readonly options: HubOptions) {
    this.#published = options.instances.lastSeq;
  }

  /** Streams open now (`vigil_sse_subscribers`). */
  get size(): number {
    return this.#streams.size;
  }

  /**
   * Opens a stream on `res`: headers and a ping, then (with a `Last-Event-ID`) the held events
   * the client missed, then live ones. It joins the fan-out before the replay is read, and the
   * stream drops live events the replay already covered, so there is neither a gap nor a duplicate.
   */
  subscribe(res: ServerResponse, topic: Topic, lastEventId: number | undefined, scope: ApplicationScope = ALL_APPLICATIONS, earlier?: EarlierEvents): void {
    // After shutdown began a keep-alive connection may still send a request: refuse it before any header.
    if (this.#closed) throw new HttpError(503, 'the server is shutting down');
    const { instances, views, log, maxBufferedBytes } = this.options;
    const stream = new SubscriberStream(res, maxBufferedBytes, (gone, reason) => this.#remove(gone, topic, reason), scope);
    stream.begin();
    this.#add(stream, topic);
    if (lastEventId !== undefined) {
      for (const replayed of replayFrames(topic, lastEventId, instances, views, scope, earlier)) stream.sendEvent(replayed.seq, replayed.frame);
    }
    stream.deliveredUpTo(instances.lastSeq);
    log.debug(`stream opened: ${describeTopic(topic)}`, { lastEventId, open: this.#streams.size });
  }

  /**
   * The `instance.changed` handler. The bus delivers events in `seq` order, each after the one
   * before has reached every handler, even those recorded from inside a handler: they go out as
   * they come. One at or below what was sent (a reload's catch-up already sent it) is skipped.
   */
  publish({ event, instance, previous }: InstanceChange): void {
    if (event.seq <= this.#published) return;
    // A rename touches two applications: the one left first (maybe now `instances: []`), then the one joined.
    this.#fanOut(event, () => {
      const [before, after] = [previous.registration?.name, instance.registration?.name];
      return before !== undefined && before !== after ? [before, after] : [after];
    }, instance.registration?.name, instance);
  }

  /**
   * The `instances.reloaded` handler: the log replaced this node's state, bringing events that
   * came with no `instance.changed` of their own (a node that fell behind the feed). The held
   * ones newer than what was sent go out now, oldest first.
   */
  catchUp(): void {
    const { instances } = this.options;
    if (this.#streams.size === 0) {
      // Nobody to send them to: a later stream's replay reads the history itself.
      this.#published = Math.max(this.#published, instances.lastSeq);
      return;
    }
    const applications = new EventApplications(instances);
    for (const missed of instances.eventsSince(this.#published)) this.#fanOut(missed, () => namesTouchedBy(missed, instances), applications.of(missed));
  }

  /**
   * `after` is the instance as this event left it; events a reload brought have none at hand,
   * and their snapshot watchers get the instance as it is now (as SBA, which reads the registry
   * when it sends).
   */
  #fanOut(event: InstanceEvent, applicationNames: () => readonly (string | undefined)[], application: string | undefined, after?: Instance): void {
    this.#published = event.seq;
    if (this.#streams.size === 0) return;
    // A stream scoped to some applications gets an event only when its instance was in one of them then.
    const sees = (stream: SubscriberStream, name: string | undefined) => stream.scope.all || (name !== undefined && stream.scope.allows(name));
    const watchers = this.#byInstance.get(event.instance);
    if (this.#events.size > 0 || watchers) {
      const message = frame(event.seq, this.options.views.event(event));
      for (const stream of this.#events) if (sees(stream, application)) stream.sendEvent(event.seq, message);
      if (watchers) for (const stream of watchers) if (sees(stream, application)) stream.sendEvent(event.seq, message);
    }
    const snapshotWatchers = this.#snapshotsByInstance.get(event.instance);
    const current = snapshotWatchers && (after ?? this.options.instances.get(event.instance));
    if (snapshotWatchers && current) {
      const message = frame(event.seq, this.options.views.instance(current));
      for (const stream of snapshotWatchers) if (sees(stream, current.registration?.name)) stream.sendEvent(event.seq, message);
    }
    if (this.#applications.size > 0) {
      const names = applicationNames().filter((name): name is string => name !== undefined);
      const snapshots = this.#applicationFrames(event.seq, names);
      if (snapshots) {
        for (const stream of this.#applications) {
          if (stream.scope.all) stream.sendEvent(event.seq, snapshots);
          else {
            const visible = names.filter((name) => stream.scope.allows(name));
            if (visible.length > 0) stream.sendEvent(event.seq, visible.length === names.length ? snapshots : this.#applicationFrames(event.seq, visible)!);
          }
        }
      }
    }
  }

  /** Starts the one keep-alive timer shared by every stream. */
  startPings(intervalMs: number): void {
    if (this.#closed || this.#pingTimer) return;
    this.#pingTimer = setInterval(() => this.ping(), intervalMs);
    // Streams keep the process busy on their own; the timer alone must not.
    this.#pingTimer.unref();
  }

  ping(): void {
    for (const stream of this.#streams) stream.send(PING);
  }

  /** Ends every stream and the timer; later subscriptions are refused. Safe to call twice. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#pingTimer);
    this.#pingTimer = undefined;
    const open = this.#streams.size;
    for (const stream of [...this.#streams]) stream.end();
    if (open > 0) this.options.log.debug(`ended ${open} open stream(s)`);
  }

  /**
   * The application snapshots for one event, serialised once for all subscribers. All go out as
   * one write under the event's id, so resuming never splits them.
   */
  #applicationFrames(seq: number, names: readonly (string | undefined)[]): Frame | undefined {
    const { instances, views } = this.options;
    const frames: Frame[] = [];
    for (const name of names) if (name !== undefined) frames.push(frame(seq, views.application(instances.application(name))));
    return frames.length > 0 ? joinFrames(frames) : undefined;
  }

  #add(stream: SubscriberStream, topic: Topic): void {
    this.#streams.add(stream);
    if (topic.kind === 'events') this.#events.add(stream);
    else if (topic.kind === 'applications') this.#applications.add(stream);
    else {
      const index = topic.kind === 'instance' ? this.#byInstance : this.#snapshotsByInstance;
      const set = index.get(topic.id) ?? new Set();
      set.add(stream);
      index.set(topic.id, set);
    }
  }

  #remove(stream: SubscriberStream, topic: Topic, reason: 'closed' | 'overflow' | 'ended'): void {
    this.#streams.delete(stream);
    if (topic.kind === 'events') this.#events.delete(stream);
    else if (topic.kind === 'applications') this.#applications.delete(stream);
    else {
      const index = topic.kind === 'instance' ? this.#byInstance : this.#snapshotsByInstance;
      const set = index.get(topic.id);
      set?.delete(stream);
      if (set?.size === 0) index.delete(topic.id);
    }
    const meta = { open: this.#streams.size, bufferedBytes: stream.res.writableLength };
    if (reason === 'overflow') {
      this.options.log.warn(`disconnected a subscriber that stopped reading (${describeTopic(topic)}): over ${this.options.maxBufferedBytes} bytes unsent`, meta);
    } else if (reason === 'closed') {
      this.options.log.debug(`stream closed by the client: ${describeTopic(topic)}`, meta);
    }
  }
}
