/** A typed key for a service; equal names are the same service, even across copies of this package. */
export interface ServiceToken<T> {
  readonly key: string;
  /** Phantom field that carries the type; never set. */
  readonly __type?: T;
}

export function defineToken<T>(key: string): ServiceToken<T> {
  return { key };
}
