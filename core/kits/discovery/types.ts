import type { ObjectShape } from 'yup';
import type { Logger } from '../../plugin-api.js';
import type { Registration } from '../../domain/index.js';
import type { DiscoveryConfig } from './config.js';

/**
 * An instance as a source lists it, converted by SBA's rules (`convertService`): the service URI
 * and metadata, from which the management and health URLs are derived.
 */
export interface DiscoveredService {
  /** The service (application) name, kept as the source spells it (Eureka's are upper-case). */
  readonly name: string;
  /** `scheme://host[:port][/path]`, kept as written: SBA keeps an explicit `:80`. */
  readonly uri: string;
  readonly metadata?: Readonly<Record<string, string>>;
  /** A health URL the source knows (Eureka's health-check URL): used as is when non-blank. */
  readonly healthUrl?: string;
  /** A management port the source knows (Kubernetes' port named `management`): beats the metadata keys. */
  readonly managementPort?: number;
}

/** An instance listed as a complete SBA registration (the file source's second form): only filtered. */
export interface DiscoveredRegistration {
  readonly registration: Registration;
}

export type Discovered = DiscoveredService | DiscoveredRegistration;

/**
 * Why a run happens: the first run once the source is active, its `refresh-interval`, a user's
 * `POST /applications`, or the source's own `changed()` signal (a watch saw something).
 */
export type RunReason = 'start' | 'interval' | 'refresh' | 'change';

export interface ListOptions {
  /** Aborted when the run times out or the kernel stops: cancel requests. */
  readonly signal: AbortSignal;
  /**
   * Why this run: a source that keeps a watched cache answers `change` from it and reads the
   * origin again for the others (the interval is its resync, `refresh` a user asking).
   */
  readonly reason: RunReason;
}

/** One source's reading of where instances are listed. Built per kernel by `create`. */
export interface DiscoverySource {
  /**
   * The **complete** set the source lists now. Reject on any error, timeout or partial answer:
   * the core then keeps the last good set and removes nothing. An empty array means "none".
   */
  list(options: ListOptions): Promise<readonly Discovered[]>;
  /**
   * Optional: begins watching for changes while this node holds the source's lease, calling
   * `changed()` when the listed set may have changed (runs are coalesced). Ends when `signal` aborts.
   */
  watch?(changed: () => void, signal: AbortSignal): void;
  /** Releases what `create` opened (agents, watchers of files). */
  close?(): Promise<void>;
}

/** What a source gets when it is created: its validated section, a logger, and the service filter. */
export interface SourceContext<Own> {
  /** The plugin's name (`discovery-file`): names logs, the lease and the source's state. */
  readonly name: string;
  readonly config: DiscoveryConfig & Own;
  readonly log: Logger;
  /** Aborted when the kernel stops. */
  readonly signal: AbortSignal;
  /**
   * Whether `services` and `ignored-services` take this name. The core filters every run anyway;
   * a source that reads each service separately (Consul) asks first to skip the others.
   */
  wantsService(name: string): boolean;
}

/** What `defineDiscoverySource` turns into a plugin. */
export interface DiscoverySourceDefinition<Own> {
  /** The plugin's name, also its config section and the lease its runs hold: `discovery-<what>`. */
  readonly name: string;
  readonly version?: string;
  /** yup schemas of the source's own keys (`path`, `url`, ...), beside the common ones. */
  readonly keys: ObjectShape;
  /** The default of `refresh-interval` for this source, in ms. */
  readonly refreshInterval: number;
  /** Builds the source for one kernel, from `start`; no I/O before `list` or `watch` is called. */
  create(context: SourceContext<Own>): DiscoverySource;
}
