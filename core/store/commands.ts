import { isDeepStrictEqual } from 'node:util';
import { boundStatus } from './bounds.js';
import { visibleEndpoints } from './instance.js';
import { sameUrls } from './packed-registration.js';
import { sharedRegistration } from './shared-values.js';
import type { Endpoint, EventDraft, Instance, Registration, StatusInfo } from './types.js';

/**
 * Commands decide which event, if any, a change produces. They are pure and synchronous, so the
 * registry can re-run one against the latest version of an instance when an append loses a race.
 * A command on a deregistered instance yields nothing: a health check that finishes after a
 * DELETE must not write after DEREGISTERED.
 */
export type Command = (current: Instance) => EventDraft | null;

/**
 * REGISTERED, REGISTRATION_UPDATED, or nothing for a heartbeat (an equal registration). The
 * registry's `register` runs it, and the REST API leaves the heartbeat to it (no check of its own).
 * The registration recorded is the one held (`sharedRegistration`), so the snapshot and its event share it.
 */
export function registerCommand(registration: Registration): Command {
  return (current) => {
    if (!current.registered) return { type: 'REGISTERED', registration: sharedRegistration(registration) };
    if (current.registration && sameRegistration(current.registration, registration)) return null; // a heartbeat
    return { type: 'REGISTRATION_UPDATED', registration: sharedRegistration(registration) };
  };
}

/**
 * Field by field, metadata in any key order: what isDeepStrictEqual would say of two
 * registrations, at a fraction of its cost on the path every heartbeat takes.
 */
export function sameRegistration(a: Registration, b: Registration): boolean {
  if (a.name !== b.name || a.source !== b.source || !sameUrls(a, b)) return false;
  const keys = Object.keys(a.metadata);
  if (keys.length !== Object.keys(b.metadata).length) return false;
  for (const key of keys) if (a.metadata[key] !== b.metadata[key] || !Object.hasOwn(b.metadata, key)) return false;
  return true;
}

export const deregisterCommand: Command = (current) => (current.registered ? { type: 'DEREGISTERED' } : null);

export type StatusChangeDetection = 'status' | 'full';

/** Records a status when its string changes, or with `full` also when only the details change. */
export function changeStatusCommand(reported: StatusInfo, detection: StatusChangeDetection = 'status'): Command {
  // Compared as it would be held: a 500-character status reported twice is one change, not two.
  const statusInfo = boundStatus(reported);
  return (current) => {
    if (!current.registered) return null;
    const changed = current.statusInfo.status !== statusInfo.status
      || (detection === 'full' && !isDeepStrictEqual(current.statusInfo.details, statusInfo.details));
    return changed ? { type: 'STATUS_CHANGED', statusInfo } : null;
  };
}

/** Records detected endpoints when they differ from the current ones (both with the health override). */
export function detectEndpointsCommand(endpoints: readonly Endpoint[]): Command {
  return (current) => {
    if (!current.registered) return null;
    const before = asMap(visibleEndpoints(current));
    const after = asMap(visibleEndpoints({ ...current, endpoints }));
    return isDeepStrictEqual(before, after) ? null : { type: 'ENDPOINTS_DETECTED', endpoints };
  };
}

export function changeInfoCommand(info: Readonly<Record<string, unknown>>): Command {
  return (current) => {
    if (!current.registered || isDeepStrictEqual(current.info, info)) return null;
    return { type: 'INFO_CHANGED', info };
  };
}

function asMap(endpoints: readonly Endpoint[]): Record<string, string> {
  const entries = [...endpoints].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return Object.fromEntries(entries.map((endpoint) => [endpoint.id, endpoint.url]));
}
