import { severity } from '../../core/domain/index.js';

/**
 * Whether a change between two statuses is no change for notifications. Statuses Vigil does not
 * know (anything but DOWN, OUT_OF_SERVICE, OFFLINE, UNKNOWN, RESTRICTED, UP) are one class: an
 * instance reporting a new made-up status on every check has not changed, for its channels, after
 * the first one.
 */
export function sameNotifiedStatus(from: string, to: string): boolean {
  return from === to || (severity(from) < 0 && severity(to) < 0);
}
