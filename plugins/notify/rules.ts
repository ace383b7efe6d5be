import type { NotifiedEventType } from '../../core/kits/notify-channel/index.js';
import { sameNotifiedStatus } from './status-class.js';

/**
 * Which changes a channel is told of: its event types (`on`, plus those it must always hear of),
 * and SBA's status rule: a status change only when the status really changed (the statuses Vigil
 * does not know count as one; reminders excepted, which SBA gets wrong: its reminders are re-sent
 * events with from = to, so its own rule suppresses them) and none of `from:to`, `*:to`,
 * `from:*` is in `ignore-changes`.
 */
export class ChannelRules {
  readonly #on: ReadonlySet<NotifiedEventType>;
  readonly #ignore: ReadonlySet<string>;

  constructor(on: readonly NotifiedEventType[], ignoreChanges: readonly string[], alwaysOn: readonly NotifiedEventType[] = []) {
    this.#on = new Set([...on, ...alwaysOn]);
    this.#ignore = new Set(ignoreChanges.map((change) => change.toUpperCase()));
  }

  wants(type: NotifiedEventType): boolean {
    return this.#on.has(type);
  }

  accepts(type: NotifiedEventType, from: string, to: string, reminder = false): boolean {
    if (!this.#on.has(type)) return false;
    if (type !== 'STATUS_CHANGED') return true;
    if (sameNotifiedStatus(from, to) && !reminder) return false;
    return !this.#ignore.has(`${from}:${to}`) && !this.#ignore.has(`*:${to}`) && !this.#ignore.has(`${from}:*`);
  }
}
