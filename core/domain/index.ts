/**
 * # The domain (`vigil/domain`)
 *
 * What an instance, a registration, an event, a status and an application are, the pure rules
 * over them (fold an event into an instance, order statuses, aggregate an application), and the
 * JSON bodies of Vigil's API. Nothing under it imports a `node:` module or any state: the
 * dashboard bundles it and folds events exactly as the server does, by construction, not by copy
 * (the architecture test holds both).
 */
export { KNOWN_STATUSES } from '../store/types.js';
export type {
  Application, Endpoint, EventDraft, EventHeader, Instance, InstanceEvent, InstanceEventType, Registration, StatusInfo,
} from '../store/types.js';
export { applyEvent, emptyInstance, endpointUrl, visibleEndpoints } from '../store/instance.js';
export { UNKNOWN_STATUS, severity, statusInfo } from '../store/status.js';
export { toApplication } from '../store/application.js';
export { parseRegistration, type HeldRegistrationOf } from '../store/registration.js';
export { maskUrlPassword } from '../store/url-credentials.js';
export { MASK } from '../store/mask.js';
export { joinUrl } from './join-url.js';
export { messageOf } from './message-of.js';
export { globMatcher, globRegExpSource } from './glob.js';
export { roleAllows, weakestRoleFor } from './roles.js';
export { permissionsOf, type Permissions } from './permissions.js';
export type { AccessGrant, AccessMe, Action, Role } from '../contract/access.js';
export type {
  AuditActor, AuditEntry, DaemonAbout, DeliveryRecord, ExpectationStatus, MaintenanceWindow, FanOutResult, NotificationChannelStatus, NotificationFilter, NotificationsStatus, WireApplication, WireEvent,
} from './wire.js';
