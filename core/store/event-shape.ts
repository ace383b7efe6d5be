import type { InstanceEvent } from './types.js';
import type { NewEvent } from '../contract/event-log.js';
import { sharedInfo, sharedRegistration, sharedStatus } from './shared-values.js';

/**
 * An event as held, with its `seq`: every field written out in one literal per type, so V8 gives
 * each type one compact shape with all fields inside the object. `{ ...event, seq }` adds them
 * one by one and spills the last into a separate property array, bytes more per event, and a
 * node holds every instance's events (bench/REPORT.md). The type is the literal, one string for
 * every event, not the copy a log's parse made; the registration, status and info are shared with
 * the events that carry the same, and a registration is packed when its URLs allow
 * (shared-values.ts). Frozen, as the logs hand events out.
 */
export function storedEvent(event: NewEvent, seq: number): InstanceEvent {
  const { instance, version, timestamp } = event;
  switch (event.type) {
    case 'REGISTERED':
      return Object.freeze({ type: 'REGISTERED', instance, version, timestamp, seq, registration: sharedRegistration(event.registration) });
    case 'REGISTRATION_UPDATED':
      return Object.freeze({ type: 'REGISTRATION_UPDATED', instance, version, timestamp, seq, registration: sharedRegistration(event.registration) });
    case 'STATUS_CHANGED':
      return Object.freeze({ type: 'STATUS_CHANGED', instance, version, timestamp, seq, statusInfo: sharedStatus(event.statusInfo) });
    case 'ENDPOINTS_DETECTED':
      return Object.freeze({ type: 'ENDPOINTS_DETECTED', instance, version, timestamp, seq, endpoints: event.endpoints });
    case 'INFO_CHANGED':
      return Object.freeze({ type: 'INFO_CHANGED', instance, version, timestamp, seq, info: sharedInfo(event.info) });
    case 'DEREGISTERED':
      return Object.freeze({ type: 'DEREGISTERED', instance, version, timestamp, seq });
  }
}
