import type { Application, Instance, InstanceEvent, Registration } from '../store/types.js';

/** The wire form of the domain values. Every output goes through these, so sanitising cannot be skipped. */
export interface JsonViews {
  /** The registration with its sensitive metadata and URL passwords masked; the registration itself when nothing is. */
  registration(registration: Registration): Registration;
  instance(instance: Instance): Record<string, unknown>;
  event(event: InstanceEvent): Record<string, unknown>;
  application(application: Application): Record<string, unknown>;
}
