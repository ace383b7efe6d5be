import type { Instance } from 'vigil/domain';

/** What every instance view gets: the live instance, and the ids of the endpoints it exposes. */
export interface InstanceViewProps {
  readonly instance: Instance;
  readonly endpoints: ReadonlySet<string>;
}
