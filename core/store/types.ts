/**
 * The domain values of the registry, as they travel on the wire (see reference §1).
 * Everything here is immutable by convention: a change is a new object, never an edit.
 */

/** Status values Vigil knows; an instance may report any other string as well. */
export const KNOWN_STATUSES = ['DOWN', 'OUT_OF_SERVICE', 'OFFLINE', 'UNKNOWN', 'RESTRICTED', 'UP'] as const;

export interface StatusInfo {
  /** Upper-cased status string, e.g. `UP`. */
  readonly status: string;
  /** Health details (`details` or `components` of the health body); always an object. */
  readonly details: Readonly<Record<string, unknown>>;
}

export interface Registration {
  readonly name: string;
  readonly managementUrl: string | null;
  readonly healthUrl: string;
  readonly serviceUrl: string | null;
  /** How the registration was made, e.g. `http-api`. */
  readonly source: string | null;
  /** Flat string map; sanitised only when serialised, the stored values stay usable. */
  readonly metadata: Readonly<Record<string, string>>;
}

export interface Endpoint {
  readonly id: string;
  readonly url: string;
}

export type InstanceEventType =
  | 'REGISTERED'
  | 'REGISTRATION_UPDATED'
  | 'STATUS_CHANGED'
  | 'ENDPOINTS_DETECTED'
  | 'INFO_CHANGED'
  | 'DEREGISTERED';

/** The payload part of an event: what a command decides, before it is numbered and stamped. */
export type EventDraft =
  | { readonly type: 'REGISTERED'; readonly registration: Registration }
  | { readonly type: 'REGISTRATION_UPDATED'; readonly registration: Registration }
  | { readonly type: 'STATUS_CHANGED'; readonly statusInfo: StatusInfo }
  | { readonly type: 'ENDPOINTS_DETECTED'; readonly endpoints: readonly Endpoint[] }
  | { readonly type: 'INFO_CHANGED'; readonly info: Readonly<Record<string, unknown>> }
  | { readonly type: 'DEREGISTERED' };

export interface EventHeader {
  /** Instance id. */
  readonly instance: string;
  /** Per-instance counter: 0 on the first event, +1 per following event. */
  readonly version: number;
  /** ISO-8601 instant. */
  readonly timestamp: string;
  /** Position in the whole store, increasing across all instances; the SSE `id:`. Not on the wire. */
  readonly seq: number;
}

export type InstanceEvent = EventHeader & EventDraft;

/** The aggregate: everything known about one instance, derived from its events in order. */
export interface Instance {
  readonly id: string;
  /** Version of the last applied event; -1 before any. */
  readonly version: number;
  readonly registration: Registration | null;
  readonly registered: boolean;
  readonly statusInfo: StatusInfo;
  readonly statusTimestamp: string;
  readonly info: Readonly<Record<string, unknown>>;
  /** Endpoints as detected; the `health` entry is added in the view while registered. */
  readonly endpoints: readonly Endpoint[];
  readonly buildVersion: string | null;
  readonly tags: Readonly<Record<string, string>>;
}

export interface Application {
  readonly name: string;
  readonly buildVersion: string | null;
  readonly status: string;
  readonly statusTimestamp: string;
  readonly instances: readonly Instance[];
}
