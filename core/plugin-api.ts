/**
 * # The Vigil plugin contract
 *
 * Everything Vigil does beyond its kernel is a plugin: the REST API, the streams, the proxy,
 * monitoring, each detection strategy, authentication. Third-party plugins use exactly the same
 * contract, published as `vigil/plugin`. This file is its specification; the kernel implements
 * it in `plugin-host.ts` and `kernel.ts`.
 *
 * Lifecycle, in order (fastify/avvio, hapi and Caddy taught this shape):
 * 1. **resolve** — each `plugins:` entry becomes a plugin object (built-in name, path, npm package);
 * 2. **validate** — the object is checked against this contract, its config section against its
 *    `configSchema`, and `dependencies` against the full list, before anything runs;
 * 3. **setup** — in dependency order (list order breaks ties), the host gives each plugin its one
 *    context and calls `create`, which registers routes, hooks, bus handlers and services and
 *    returns the instance's lifecycle. No timers, sockets or I/O here, so a failed start leaves
 *    nothing behind;
 * 4. **listen** — the HTTP server opens;
 * 5. **start** — same order: each lifecycle's `start` begins background work (timers, polling);
 * 6. **reload** — on SIGHUP, each changed section goes to its lifecycle's `reload`;
 * 7. **stop** — reverse order, on SIGTERM/SIGINT or after a later plugin failed to start.
 * Each step runs under a timeout (`plugin-timeout`, default 10 s); a failure names the plugin.
 * Plugins written before `create` have `setup`, `start`, `stop` and `reload` on the plugin object
 * instead; the host runs them the same way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BusEvents, BusHandler } from './bus.js';
import type { HttpMethod, Logger, Services } from './contract/basics.js';
import type { Fence } from './contract/event-log.js';
import type { Outbound } from './contract/outbound.js';
import type { Application, DaemonAbout, Instance, InstanceEvent, Registration } from './domain/index.js';
import type { Command } from './store/commands.js';
import type { JsonViews } from './contract/views.js';
import type { ConfigSchema } from '../config/validate.js';
import type { Principal } from './contract/principal.js';
import type { AccessDecision, RouteAccess } from './contract/access.js';

// The types this contract names, from the files that declare them. What an instance, an event
// or an application is lives in `vigil/domain`; what an event log must do, in `vigil/event-log`.
export type { HttpMethod, Logger, Services } from './contract/basics.js';
export type { BusEvents, BusHandler, InstanceChange } from './bus.js';
export type { ConfigSchema } from '../config/validate.js';
export type { JsonViews } from './contract/views.js';
export type { Outbound } from './contract/outbound.js';
export {
  changeInfoCommand, changeStatusCommand, detectEndpointsCommand, sameRegistration, type Command, type StatusChangeDetection,
} from './store/commands.js';
export { instanceIdOf } from './store/instance-id.js';
export { StaleFenceError, StoreUnavailableError, VersionConflictError, type Fence } from './contract/event-log.js';

// Helpers every kind of plugin needs.
export { CALL_FAILURE, SSRF_REFUSED, TIMEOUT_CODES, VigilError, messageOf } from './errors.js';
export { duration, parseDuration } from '../config/duration.js';
export { HttpError, errorBody } from './http/http-error.js';
export { readBody } from './http/read-body.js';
export { acceptedMediaRanges } from './http/accepts.js';
export { StreamTooLargeError, collectStream } from './http/collect-stream.js';
export { addressKey } from './http/address-key.js';
export { parseCidr } from './cidr.js';
export { Fifo } from './fifo.js';
export { OccasionalWarning } from './occasional-warning.js';
export { vigilVersion } from './version.js';
/** "Did you mean": the known name a typo most likely meant, as the config's own errors say it. */
export { nearestName } from '../config/suggest.js';

// The services the kernel reads, fills or collects, one declaration each in core/contract/; those
// plugins offer each other (metrics, the API description, detection) are in `vigil/services`.
export { defineToken, type ServiceToken } from './contract/tokens.js';
export { LEASES, NODE_ID, OWNERSHIP, type Lease, type Leases, type Ownership } from './contract/coordination.js';
export { SHARED_STATE, type SharedLog, type SharedMap, type SharedState } from './contract/shared-state.js';
export { EVENT_OUTBOX, type EventOutbox, type OutboxItem } from './contract/event-outbox.js';
export { LIVENESS_PATH, READINESS, READINESS_PATH, type Readiness, type ReadinessCheck } from './contract/readiness.js';
export type { Principal } from './contract/principal.js';
export {
  ACTIONS, ALL_APPLICATIONS, ROLES, type AccessDecision, type AccessGrant, type AccessMe, type AccessRequest, type Action, type ApplicationScope,
  type Role, type RouteAccess,
} from './contract/access.js';
export { ALLOWED_HOSTS, type AllowedHostsSource } from './contract/allowed-hosts.js';
// What the kernel asks of two of the parts the composition root builds for it (the kits `access` and `http-edge`).
export type { AccessDecider, AccessVerdict, DecidedRequest } from './contract/access-decider.js';
export type { HostRefusal, HttpEdge, OriginTrust, ServerSettings } from './contract/http-edge.js';

/** A plugin: a plain object, usually the default export of its module. */
export interface VigilPlugin<Config = unknown> {
  /** Unique name, kebab-case (`detect-eureka`). Used in logs, errors and `dependencies`. */
  readonly name: string;
  /** The plugin's own version, shown in the boot report. */
  readonly version?: string;
  /** Names of plugins that must be loaded and set up before this one; checked on the whole list before anything starts. */
  readonly dependencies?: readonly string[];
  /**
   * The top-level config key this plugin reads. Defaults to `name`; `null` means the plugin has
   * no section. A key may be shared knowledge (`probed-endpoints` for `detect-probe`).
   */
  readonly configKey?: string | null;
  /**
   * A yup schema for the section. It should reject unknown keys (`.exact()`: in yup 1.x `.noUnknown()` strips them when casting), give defaults,
   * and use `duration()` for durations. The validated (cast) value is `ctx.config`.
   * The section is validated even when absent (as `undefined`), so defaults apply.
   */
  readonly configSchema?: ConfigSchema<Config>;
  /**
   * Makes this plugin's instance for one kernel, at the **setup** step: registers what the plugin
   * contributes (routes, hooks, bus handlers, services; no timers, sockets or I/O) and returns its
   * lifecycle, which the host keeps for the kernel's life. Called once per kernel with the one
   * context the plugin gets. Whatever the plugin keeps for a kernel lives in what `create` makes
   * (a closure, an object), never in module state: one plugin object may serve several kernels in
   * one process (tests run many). Returning nothing means the plugin has no lifecycle.
   *
   * A plugin has `create` or, in the older form kept for existing plugins, `setup` (with `start`,
   * `stop` and `reload` on the plugin object, each called with the same context): never both.
   */
  create?(ctx: PluginContext<Config>): PluginLifecycle<Config> | void | Promise<PluginLifecycle<Config> | void>;
  /** The older form of `create`: registers what the plugin contributes, and returns nothing. */
  setup?(ctx: PluginContext<Config>): void | Promise<void>;
  /** The older form's `PluginLifecycle.start`, called with the plugin's context. */
  start?(ctx: PluginContext<Config>): void | Promise<void>;
  /** The older form's `PluginLifecycle.stop`, called with the plugin's context. */
  stop?(ctx: PluginContext<Config>): void | Promise<void>;
  /** The older form's `PluginLifecycle.reload`, called with the plugin's context (still holding the old section) and the new section. */
  reload?(ctx: PluginContext<Config>, config: Config): ReloadResult | Promise<ReloadResult>;
  /**
   * Commands this plugin adds to the `vigil` CLI, by name (`basic-auth` adds `vigil hash-password`).
   * A command runs alone: no kernel, no config, no lifecycle step; it gets the words after its
   * name and the process's streams. A built-in plugin's commands are also named in the built-in
   * map, so the CLI imports only the plugin whose command was asked for.
   */
  readonly commands?: Readonly<Record<string, PluginCommand>>;
  /**
   * Checks this plugin's validated section against the other loaded plugins' (`notify`: each
   * route names a channel target that exists). Called by `--check-config` and at every load and
   * reload, once every section is valid: `problems` refuse the config, `warnings` are printed.
   */
  crossCheck?(config: Config, loaded: readonly LoadedSection[]): { readonly problems: readonly string[]; readonly warnings: readonly string[] };
}

/** A loaded plugin as `crossCheck` sees it: its name, dependencies and validated section. */
export interface LoadedSection {
  readonly name: string;
  readonly dependencies: readonly string[];
  readonly config: unknown;
}

/** What `create` returns: the rest of one plugin instance's life. Every member is optional. */
export interface PluginLifecycle<Config = unknown> {
  /** Begins background work (timers, polling), after the server listens; in dependency order. */
  start?(): void | Promise<void>;
  /** Ends background work and releases resources; in reverse order. Must finish within the timeout. */
  stop?(): void | Promise<void>;
  /**
   * Applies a changed section while running (SIGHUP, `systemctl reload`), without dropping a
   * connection or a stream. Called only once the whole new config is valid, only when this
   * plugin's section differs from the running one, and under the same timeout as `start`. It
   * returns the dotted keys it could not apply (they need a restart; each is named in a warning),
   * or nothing. Throwing refuses the change for this plugin (logged) and keeps its old config.
   * Until it resolves `ctx.config` is the old section, from then on the new one. Without this
   * member, any change to the section is reported as needing a restart.
   */
  reload?(config: Config): ReloadResult | Promise<ReloadResult>;
}

/** One `vigil <name> [args]` command of a plugin. */
export interface PluginCommand {
  /** Runs the command and resolves with the process's exit code; problems go to `io.stderr`. */
  run(args: readonly string[], io: CommandIo): Promise<number>;
}

/** The process's streams, as a command gets them (tests give it their own). */
export interface CommandIo {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Whether stdin is a terminal (a command may then prompt, e.g. with echo off). */
  readonly isTTY: boolean;
}

/** What `reload` returns: nothing when everything applied, else the keys that need a restart. */
export type ReloadResult = void | readonly string[];

/** What the kernel hands each plugin: one context per plugin and kernel, for the plugin's whole life; nothing in it leaks kernel internals. */
export interface PluginContext<Config = unknown> {
  /** This plugin's name. */
  readonly name: string;
  /** The validated config section (`undefined` cast through the schema when absent). */
  readonly config: Config;
  /** Kernel settings a plugin may need to read. */
  readonly settings: KernelSettings;
  /** A logger whose lines carry this plugin's name. */
  readonly log: Logger;
  /** The typed event bus shared by kernel and plugins. */
  readonly bus: PluginBus;
  /** The instance registry: the only way to read or change instances. */
  readonly registry: Registry;
  /** The policy every call to an instance goes through: agents, credentials, SSRF, User-Agent. */
  readonly outbound: Outbound;
  /** The wire (JSON) form of instances, events and applications, with metadata sanitised. */
  readonly views: JsonViews;
  /** HTTP routes and hooks, scoped to the context path. Only usable at the setup step (in `create`). */
  readonly http: HttpRoutes;
  /** Typed services shared between plugins without reaching into each other's internals. */
  readonly services: Services;
  /** Aborted when the kernel begins to stop: end streams, cancel requests, stop loops. */
  readonly signal: AbortSignal;
  /**
   * Asks the daemon to stop as on SIGTERM and then exit with `exitCode` (default 1), for a
   * plugin whose operators prefer a restart by their orchestrator to running degraded
   * (`cluster-redis.on-outage: exit`). `reason` is logged.
   */
  requestExit(reason: string, exitCode?: number): void;
}

export interface KernelSettings {
  /** The context path, normalised: `''` or `/admin` (leading slash, no trailing slash). */
  readonly contextPath: string;
  readonly host: string;
  /** The configured port (0 = any); the bound one is in `address()` once listening. */
  readonly port: number;
  /** The base URL the server listens on, e.g. `http://127.0.0.1:8080/admin`; undefined before listen. */
  address(): string | undefined;
  /** The `event-store` limits, which an event log a plugin provides must apply the same way. */
  readonly eventStore: {
    readonly maxEventsPerInstance: number;
    readonly retentionAfterDeregistration: number;
    /**
     * How many deregistered instances' histories are kept at most: when one more is deregistered,
     * the one deregistered longest ago is dropped (every node forgets it), whatever the retention.
     */
    readonly maxDeregisteredInstances: number;
    readonly maxDetailsBytes: number;
  };
  /** The position of a plugin in the `plugins:` list, or -1; used to order contributions. */
  pluginIndex(name: string): number;
  /**
   * What this daemon runs, for an About page: Vigil's version, the loaded plugins and the
   * effective config with every secret masked (safe to show to whoever may see the dashboard).
   */
  about(): DaemonAbout;
}

export interface PluginBus {
  /** Subscribes until `unsubscribe()` or until the kernel stops. A throwing handler is logged, never fatal. */
  on<K extends keyof BusEvents>(name: K, handler: BusHandler<BusEvents[K]>): () => void;
  /** Publishes synchronously to every subscriber. */
  emit<K extends keyof BusEvents>(name: K, payload: BusEvents[K]): void;
  /** How many handlers listen to `name` (e.g. whether anyone serves a refresh). */
  listenerCount(name: keyof BusEvents): number;
}

/**
 * The registry facade. Instances are immutable snapshots; changes go through commands.
 *
 * Reads are synchronous, against this node's snapshot. Writes are asynchronous: they go through
 * the event log (`EVENT_LOG`; in memory unless a plugin provides one) and resolve once this
 * node's snapshot holds the result, so a read right after a write on the same node sees it.
 * Every recorded event, whichever node wrote it, is applied in `seq` order and published on the
 * bus as `instance.changed`, in that order, once the writing call has returned (never inside it).
 * The registry is ready once every plugin has set up: no plugin reads or writes it at the setup
 * step (in `create`). A write while the log cannot take it rejects with
 * `StoreUnavailableError` and changes nothing.
 */
export interface Registry {
  /** Registers or re-registers (REGISTERED, REGISTRATION_UPDATED or nothing for an equal heartbeat). */
  register(registration: Registration, options?: WriteOptions): Promise<{ id: string; event: InstanceEvent | null }>;
  /** Records DEREGISTERED; false when the id was never seen. */
  deregister(id: string, options?: WriteOptions): Promise<boolean>;
  /**
   * Runs a command (e.g. `changeStatusCommand(...)`) against the newest snapshot and appends its
   * event. Commands ignore deregistered instances, so a late result after a DELETE writes nothing.
   * When another writer got in first (another node), the command runs again on the newer state.
   */
  apply(id: string, command: Command, options?: WriteOptions): Promise<InstanceEvent | null>;
  /** An instance by id, registered or recently deregistered. */
  get(id: string): Instance | undefined;
  /** Registered instances, optionally of one application name. */
  list(name?: string): Instance[];
  applications(): Application[];
  /** One application; `instances: []` and UNKNOWN when none is registered. */
  application(name: string): Application;
  /**
   * Every held event, oldest first. Long-deregistered instances' histories are held compressed
   * and read for this: to count events, use `eventCount`.
   */
  events(): InstanceEvent[];
  /** How many events `events()` would return. */
  readonly eventCount: number;
  eventsOf(id: string): readonly InstanceEvent[];
  /** Held events recorded after the event with this `seq`; how streams resume. */
  eventsSince(seq: number): InstanceEvent[];
  /**
   * `eventsSince` and `eventsOf` hold every event after this seq (0: they hold everything). A
   * cluster node holds the whole history only of some instances and the newest events of all;
   * what is older it reads with `readEvents` and `readEventsOf`.
   */
  readonly completeAfter: number;
  /** Every event with `after < seq <= upTo` (default: `lastSeq`), oldest first, in batches read as consumed. */
  readEvents(after: number, upTo?: number): AsyncIterable<readonly InstanceEvent[]>;
  /** The whole history of one instance up to `lastSeq`, wherever it is held; never rejects (while the log is unreachable: what this node holds of it). */
  readEventsOf(id: string): Promise<readonly InstanceEvent[]>;
  /** `seq` of the newest event applied to this node's snapshot. */
  readonly lastSeq: number;
  /**
   * The seq a stream resumes after for a client's `Last-Event-ID`: the id itself when this
   * registry's log issued it, else 0 (replay everything held): an id from an earlier run of the
   * daemon is never taken for one of this run. Seqs are decimal and increase across restarts.
   */
  resumePoint(lastEventId: number): number;
  /**
   * Resolves true once this node's copy holds the event `seq` (at once when it does), false after
   * `timeoutMs`. A stream resumed on a node that lags behind the one the client came from waits
   * here first, so it neither skips nor repeats what the client saw there.
   */
  waitForSeq(seq: number, timeoutMs: number): Promise<boolean>;
}

/** How a write is made. */
export interface WriteOptions {
  /**
   * The singleton job's lease and token this write is a decision of (a discovery run's
   * deregistration): the log refuses it with `StaleFenceError` once another node holds the lease.
   */
  readonly fence?: Fence;
  /**
   * Awaited once the write has decided it records something, before it is appended: the caller's
   * throttle for writes that come in bursts (`turnSlot`). A write that records nothing, such as
   * an equal heartbeat, never waits; one whose instance changed during the wait is decided again.
   */
  readonly turn?: () => Promise<void>;
}

/** The request a handler gets: Node's, plus what the router parsed. */
export interface VigilRequest extends IncomingMessage {
  /** Route parameters (`:id`, and `wild` for a trailing `*`), URL-decoded. */
  params: Record<string, string>;
  /** Query string values (first value of repeated keys is not guaranteed: prefer `searchParams`). */
  query: Record<string, string | string[]>;
  /** The path without the query, as received (context path included, still percent-encoded). */
  path: string;
  /** The raw request target as received. */
  originalUrl: string;
  /** Principal set by an auth hook, for logs. */
  user?: string;
  /** Who is calling, once an authentication hook verified it (`user` then holds its name, for logs). */
  principal?: Principal;
  /**
   * What the kernel's access check decided, set before the handler runs: the route's action, and
   * the applications the caller may see with it (list routes show only those).
   */
  access?: AccessDecision;
  /**
   * The pattern of the route serving the request, as its plugin registered it (`/instances/:id`),
   * set when the route's handler is called. Bounded, unlike the path: what metrics label by.
   */
  route?: string;
}

export type RouteHandler = (req: VigilRequest, res: ServerResponse) => unknown;
/** A hook runs before routes; it ends the response to stop the request, or returns to let it through. */
export type Hook = (req: VigilRequest, res: ServerResponse) => unknown;

/** What a route declares: when it is served (`accepts`), and its action for the access check (see `vigil/plugin`'s `RouteAccess`). */
export interface RouteOptions extends RouteAccess {
  /**
   * Serve only requests whose `Accept` includes this media type (e.g. `text/event-stream`); other
   * requests fall through to routes without this option. Such routes are tried first.
   */
  readonly accepts?: string;
}

export interface HttpRoutes {
  /** The context path (`''` or `/admin`); routes are registered under it automatically. */
  readonly contextPath: string;
  /**
   * Adds a route. `path` is relative to the context path and uses `:param` segments and a
   * trailing `*`. A thrown `HttpError` becomes its JSON error body; any other error a 500.
   */
  route(method: HttpMethod | readonly HttpMethod[], path: string, handler: RouteHandler, options?: RouteOptions): void;
  /**
   * Adds a hook for every request, including unknown paths. Stages run in order
   * `pre` (CORS) → `auth` (authentication) → routes.
   */
  hook(stage: 'pre' | 'auth', hook: Hook): void;
  /**
   * Trusts browser pages of the origins `trust` accepts (e.g. the `cors` plugin's allowed ones)
   * to send unsafe requests. Before any hook or route, the kernel refuses with 403 a POST, PUT,
   * PATCH or DELETE that a browser marks as cross-site (`Sec-Fetch-Site: cross-site`, or an
   * `Origin` that is neither this server's nor trusted); requests without either header pass.
   */
  trustOrigin(trust: (origin: string) => boolean): void;
  /** Reads a JSON body: 415 unless the Content-Type is JSON, 413 over 1 MiB, 400 when malformed. */
  readJson(req: VigilRequest): Promise<unknown>;
  /** Writes a JSON response. */
  sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void;
  /**
   * A JSON array of `view(item)` for each item, written in pieces as the socket takes them (large
   * lists); `items` may come in batches read as they are written (`Registry.readEvents`).
   */
  sendJsonArray<T>(res: ServerResponse, status: number, items: readonly T[] | AsyncIterable<readonly T[]>, view: (item: T) => unknown, headers?: Record<string, string>): Promise<void>;
  /** Writes the contract's JSON error body `{timestamp,status,error,message,path}`. */
  sendError(req: VigilRequest, res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void;
  /** Every route registered so far, as `METHOD /full/path` (for audits such as the auth sweep). */
  routes(): readonly { method: HttpMethod; path: string }[];
  /**
   * Calls `listener` once per request, when its response has finished or its connection closed
   * (streams: when they end). `req.route` is then the route that served it, or that would have
   * (a request a hook answered, e.g. a 401), or undefined when no route matches. Keep it cheap:
   * it runs for every request. Nothing is observed unless a plugin asks.
   */
  onResponse(listener: (req: VigilRequest, res: ServerResponse) => void): void;
}

/** Helper for plugin authors: gives a plugin object its type without changing it. */
export function definePlugin<Config>(plugin: VigilPlugin<Config>): VigilPlugin<Config> {
  return plugin;
}
