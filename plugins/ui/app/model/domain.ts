/**
 * The registry's own pure rules, bundled into the app from core/store: the dashboard folds events
 * and aggregates application status exactly as the server does, by construction, not by copy.
 */
import type { EventDraft, EventHeader, Instance } from '../../../../core/store/types.js';

export { applyEvent, emptyInstance, visibleEndpoints } from '../../../../core/store/instance.js';
export { toApplication } from '../../../../core/store/application.js';
export { severity } from '../../../../core/store/status.js';
export { KNOWN_STATUSES } from '../../../../core/store/types.js';
export type { Application, Endpoint, Instance, InstanceEvent, InstanceEventType, Registration, StatusInfo } from '../../../../core/store/types.js';

/** An event as the API sends it: the store's `seq` travels as the SSE `id:`, not in the body. */
export type WireEvent = Omit<EventHeader, 'seq'> & EventDraft;

/** An application as GET /applications sends it. */
export interface WireApplication {
  readonly name: string;
  readonly buildVersion: string | null;
  readonly status: string;
  readonly statusTimestamp: string;
  readonly instances: readonly Instance[];
}
