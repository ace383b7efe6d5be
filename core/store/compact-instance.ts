import { endpointIdsUnder, endpointsUnder } from './held-endpoints.js';
import { applyEvent } from './instance.js';
import { sharedInfo, sharedRegistration, sharedStatus, sharedTagMap } from './shared-values.js';
import type { Endpoint, Instance, InstanceEvent, Registration, StatusInfo } from './types.js';

const NO_ENDPOINTS: readonly Endpoint[] = Object.freeze([]);

/**
 * The snapshot of an instance as a node holds it, whether or not it holds its history (a cluster
 * node holds every instance, the histories only of those it checks). Its endpoints, when every
 * one is at `<managementUrl>/<id>`, are held as the list of their ids, one list shared by every
 * instance listing the same ids (and by their held ENDPOINTS_DETECTED events,
 * `withHeldEndpoints`), and built when read: as objects they were the largest part of an
 * instance. Its status, info, tags and the name, source and metadata of its registration are
 * shared with the instances that read the same (each was parsed on its own from the log).
 * `toJSON` gives the plain form, as the snapshot it stands for.
 */
class CompactInstance implements Instance {
  readonly id: string;
  readonly version: number;
  readonly registration: Registration;
  readonly registered: boolean;
  readonly statusInfo: StatusInfo;
  readonly statusTimestamp: string;
  readonly info: Readonly<Record<string, unknown>>;
  /** The ids of endpoints all at `<managementUrl>/<id>` (a shared list), or the endpoints themselves. */
  readonly #endpoints: readonly string[] | readonly Endpoint[];
  readonly buildVersion: string | null;
  readonly tags: Readonly<Record<string, string>>;

  constructor(instance: Instance, registration: Registration, endpoints: readonly string[] | readonly Endpoint[]) {
    this.id = instance.id;
    this.version = instance.version;
    this.registration = sharedRegistration(registration);
    this.registered = instance.registered;
    this.statusInfo = sharedStatus(instance.statusInfo);
    this.statusTimestamp = instance.statusTimestamp;
    this.info = sharedInfo(instance.info);
    this.#endpoints = endpoints;
    this.buildVersion = instance.buildVersion;
    this.tags = sharedTagMap(instance.tags);
  }

  get endpoints(): readonly Endpoint[] {
    const held = this.#endpoints;
    return held.length > 0 && typeof held[0] === 'string' ? endpointsUnder(this.registration.managementUrl!, held as readonly string[]) : held as readonly Endpoint[];
  }

  /**
   * This snapshot after a status or info change, which leaves the registration and the endpoints
   * as they are: folded without its endpoints (an empty list stands in), which are carried over as
   * held, not built, compared and looked up again.
   */
  afterKeepingEndpoints(event: InstanceEvent): CompactInstance {
    const next = applyEvent(this.#plain(NO_ENDPOINTS), event);
    return new CompactInstance(next, this.registration, this.#endpoints);
  }

  toJSON(): Instance {
    return this.#plain(this.endpoints);
  }

  /** This snapshot as a plain instance with `endpoints`. */
  #plain(endpoints: Instance['endpoints']): Instance {
    return {
      id: this.id,
      version: this.version,
      registration: this.registration,
      registered: this.registered,
      statusInfo: this.statusInfo,
      statusTimestamp: this.statusTimestamp,
      info: this.info,
      endpoints,
      buildVersion: this.buildVersion,
      tags: this.tags,
    };
  }
}

/** `instance` held compactly (see CompactInstance); reading it gives the same values. */
export function compactInstance(instance: Instance): Instance {
  const { registration } = instance;
  if (!registration || instance instanceof CompactInstance) return instance;
  return new CompactInstance(instance, registration, endpointIdsUnder(instance.endpoints, registration.managementUrl) ?? instance.endpoints);
}

/** `previous` after `event`, held compactly: how a node applies every event to its snapshot. */
export function applyCompactly(previous: Instance, event: InstanceEvent): Instance {
  if (previous instanceof CompactInstance && (event.type === 'STATUS_CHANGED' || event.type === 'INFO_CHANGED')) return previous.afterKeepingEndpoints(event);
  return compactInstance(applyEvent(previous, event));
}
