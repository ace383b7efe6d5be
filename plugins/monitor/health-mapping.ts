import { STATUS_CODES } from 'node:http';
import { statusInfo, type StatusInfo } from '../../core/domain/index.js';
import type { InstanceResponse } from '../../core/kits/services/index.js';
import { toCallError } from './call-error.js';
import { groupsOfBody } from './health-groups.js';
import { isJsonType, isPlainObject, parseJsonObject } from './media-type.js';

/** A health answer read once: the status, and the health groups it lists (undefined when it lists none). */
export interface HealthReading {
  readonly status: StatusInfo;
  readonly groups: string[] | undefined;
}

/** Reads a health answer: its status (`statusFromResponse`) and its `groups`, from one parse of the body. */
export function healthFromResponse(response: InstanceResponse): HealthReading {
  const body = isJsonType(response.contentType) ? parseJsonObject(response.body) : undefined;
  return { status: statusOfBody(response, body), groups: groupsOfBody(body) };
}

/**
 * A health answer as SBA's StatusUpdater maps it (reference §4.3): a string `status` in a JSON
 * body wins even on a non-2xx code; otherwise 2xx is UP and anything else DOWN with the code,
 * the reason phrase and the body's `details` (or the whole body) merged in.
 */
export function statusFromResponse(response: InstanceResponse): StatusInfo {
  return healthFromResponse(response).status;
}

function statusOfBody(response: InstanceResponse, body: Record<string, unknown> | undefined): StatusInfo {
  if (body && typeof body.status === 'string') return statusInfo(body.status, detailsOf(body));
  if (response.status >= 200 && response.status < 300) return statusInfo('UP');
  const extra = body ? (isPlainObject(body.details) ? body.details : body) : {};
  return statusInfo('DOWN', { status: response.status, error: STATUS_CODES[response.status] ?? 'Unknown', ...extra });
}

/** A transport failure or time-out: the instance is OFFLINE, and the details say why. */
export function statusFromError(error: unknown): StatusInfo {
  const failure = toCallError(error);
  return statusInfo('OFFLINE', { message: failure.message, exception: failure.code });
}

/** `details` (Boot 2.0/2.1) or `components` (Boot 2.2+) of a health body; always an object. */
function detailsOf(body: Record<string, unknown>): Record<string, unknown> {
  if (isPlainObject(body.details)) return body.details;
  if (isPlainObject(body.components)) return body.components;
  return {};
}
