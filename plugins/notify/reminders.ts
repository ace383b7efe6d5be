import type { SharedMap, SharedState } from '../../core/plugin-api.js';

/** What is remembered of an instance in a reminder status, in `SHARED_STATE` (map `notify.reminders`). */
export interface ReminderState {
  /** The status being reminded of, and the change that led to it (for `ignore-changes`). */
  readonly status: string;
  readonly from: string;
  /** The version of that change: reminder ids are `<instance>-<version>-r<n>`. */
  readonly version: number;
  readonly timestamp: string;
  /** When it was last notified (ms since the epoch), and how many reminders were sent. */
  readonly last: number;
  readonly count: number;
}

/**
 * Reminder state, shared by every node: the change that started it is recorded by whichever node
 * handled it, and the reminders are sent by the one holding the lease `notify-reminders`.
 * SBA keeps this in the notifier's memory, so a restart or another node forgets it.
 */
export class ReminderStore {
  constructor(private readonly state: () => SharedState) {}

  #map(): SharedMap {
    return this.state().map('notify.reminders');
  }

  async begin(instance: string, change: { status: string; from: string; version: number; timestamp: string }): Promise<void> {
    const state: ReminderState = { ...change, last: Date.now(), count: 0 };
    await this.#map().set(instance, JSON.stringify(state));
  }

  async end(instance: string): Promise<void> {
    await this.#map().delete(instance);
  }

  /** Instances whose last notification is at least `periodMs` old. */
  async due(periodMs: number, now = Date.now()): Promise<[string, ReminderState][]> {
    const due: [string, ReminderState][] = [];
    for (const [instance, value] of await this.#map().entries()) {
      let state: ReminderState;
      try {
        state = JSON.parse(value) as ReminderState;
      } catch {
        continue;
      }
      if (now - state.last >= periodMs) due.push([instance, state]);
    }
    return due;
  }

  async sent(instance: string, state: ReminderState, now = Date.now()): Promise<ReminderState> {
    const next: ReminderState = { ...state, last: now, count: state.count + 1 };
    await this.#map().set(instance, JSON.stringify(next));
    return next;
  }
}
