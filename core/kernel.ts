import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { container, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { KernelConfig, LogLevel } from '../config/kernel-schema.js';
import { EventBus } from './bus.js';
import { describeDaemon } from './about.js';
import { VigilError, messageOf } from './errors.js';
import { readJsonBody } from './http/json-body.js';
import { listeningLine } from './listen-urls.js';
import { Router } from './http/router.js';
import { sendJsonArray } from './http/json-array.js';
import {
  ALLOWED_HOSTS, EVENT_OUTBOX, LEASES, NODE_ID, OWNERSHIP, READINESS, SHARED_STATE, type AccessDecider, type HttpEdge, type HttpMethod,
  type JsonViews, type Logger, type Outbound, type PluginContext, type Services,
} from './plugin-api.js';
import { EVENT_LOG } from './event-log.js';
import { SINGLE_NODE_LEASES, SINGLE_NODE_OWNERSHIP } from './contract/coordination.js';
import { LocalSharedState } from './contract/shared-state.js';
import { LocalOutbox } from './contract/event-outbox.js';
import { vigilVersion } from './version.js';
import { PluginHost } from './plugin-host.js';
import type { Prepared, PreparedPlugin } from './prepare.js';
import { ServiceRegistry } from './services.js';
import { MemoryEventLog } from './store/memory-event-log.js';
import { runSeqBase } from './store/seq-base.js';
import { planReload, type ReloadReport } from './reload.js';
import { InstanceRegistry } from './store/registry.js';

export type Phase = 'stopped' | 'starting' | 'started' | 'stopping';

/** The kernel's logger; a root logger can also change its level (`log-level` on reload). */
export type KernelLogger = Logger & { setLevel?(level: LogLevel): void };

/** What the composition root (`bin/`) hands the kernel: the parts of it that live outside core/. */
export interface KernelParts {
  /** The policy behind `ctx.outbound`, from `ssrf-protection` and `instance-auth`; `userAgent` is asked when the first call goes out. */
  outbound(settings: KernelConfig, userAgent: () => string): Outbound;
  /** `ctx.views`, masking the metadata keys `sanitizePatterns` match; `replace` applies a reloaded `metadata-keys-to-sanitize`. */
  views(sanitizePatterns: readonly string[]): { readonly views: JsonViews; replace(patterns: readonly string[]): void };
  /**
   * The decision point every route goes through, from the `access` section, adding `GET /access/me`
   * through `http`; `applicationOf` tells an instance's application; `replace` applies a reloaded section.
   */
  access(
    settings: KernelConfig['access'], http: PluginContext['http'], applicationOf: (id: string) => string | undefined,
  ): { readonly decider: AccessDecider; replace(settings: KernelConfig['access']): void };
  /**
   * The guards of the HTTP server, from the `server` section, built once plugins are set up:
   * `listenHost` (the `host` key) and what plugins contribute (`contributedHosts`) are allowed
   * hosts too; `http` writes the JSON error of what Node refuses before routing; `log` is the kernel's.
   */
  httpEdge(settings: KernelConfig['server'], context: {
    readonly listenHost: string;
    readonly contributedHosts: () => readonly string[];
    readonly http: PluginContext['http'];
    readonly log: Logger;
  }): HttpEdge;
}

// Tokens of the composition root. They never leave core/: plugins get a PluginContext instead.
const SETTINGS = Symbol('settings');
const LOGGER = Symbol('logger');

/**
 * Wires the kernel services in a child container (one per kernel, so tests can run many) and
 * drives the phases stopped → starting → started → stopping → stopped.
 */
export class Kernel {
  #phase: Phase = 'stopped';
  #server: Server | undefined;
  #edge: HttpEdge | undefined;
  #url: string | undefined;
  #boundPort: number | undefined;
  readonly #abort = new AbortController();
  readonly #host: PluginHost;
  readonly #router: Router;
  readonly #registry: InstanceRegistry;
  #settings: KernelConfig;
  readonly #log: KernelLogger;
  readonly #parts: KernelParts;
  readonly #views: ReturnType<KernelParts['views']>;
  /** Each loaded plugin's running section (what `ctx.config` returns), by plugin name. */
  readonly #configs = new Map<string, { config: unknown; readonly rank: number }>();
  #reloading: Promise<unknown> = Promise.resolve();
  readonly #bus: EventBus;
  readonly #services: Services;
  readonly #serviceRegistry: ServiceRegistry;
  /** The decision point, whose policy a reload of `access` replaces. */
  readonly #access: ReturnType<KernelParts['access']>;

  /** What happens when a plugin asks to exit: set by the embedder (main: stop, then exit); stopping by default. */
  #onExitRequest: (exitCode: number) => void = () => {
    void this.stop();
  };

  constructor(prepared: Prepared, log: KernelLogger, parts: KernelParts) {
    const scope = compose(prepared.settings, log);
    this.#settings = prepared.settings;
    this.#log = log;
    this.#parts = parts;
    this.#router = scope.resolve(Router);
    this.#registry = scope.resolve(InstanceRegistry);
    const bus = scope.resolve(EventBus);
    this.#bus = bus;
    this.#views = parts.views(prepared.settings['metadata-keys-to-sanitize']);
    const views = this.#views.views;
    const services = scope.resolve(ServiceRegistry);
    const kernelServices = services.forPlugin('kernel', -1);
    this.#services = kernelServices;
    this.#serviceRegistry = services;
    // Asked when the first call goes out: by then the port is bound and a plugin may have named the node.
    const outbound = parts.outbound(prepared.settings, () => `Vigil/${vigilVersion()} (node ${kernelServices.use(NODE_ID) ?? `${hostname()}:${this.#boundPort ?? prepared.settings.port}`})`);
    // Every route of every plugin is checked against the caller's grants before its handler runs.
    this.#access = parts.access(prepared.settings.access, this.#routesFor(), (id) => this.#registry.get(id)?.registration?.name);
    this.#router.checkAccess(this.#access.decider);
    const ranks = new Map(prepared.plugins.map((item) => [item.plugin.name, item.rank]));
    for (const item of prepared.plugins) this.#configs.set(item.plugin.name, { config: item.config, rank: item.rank });
    // The phase is the kernel's own readiness: not ready while starting or stopping.
    kernelServices.contribute(READINESS, {
      name: 'kernel',
      check: () => (this.#phase === 'started' ? { ready: true } : { ready: false, reason: `the kernel is ${this.#phase}` }),
    });
    const configs = this.#configs;

    const contextOf = (item: PreparedPlugin): PluginContext<unknown> => ({
      name: item.plugin.name,
      // A getter: a reload replaces the section, and the plugin reads the new one from then on.
      get config() {
        return configs.get(item.plugin.name)?.config;
      },
      settings: {
        contextPath: this.#settings['context-path'],
        host: this.#settings.host,
        port: this.#settings.port,
        address: () => this.#url,
        pluginIndex: (name) => ranks.get(name) ?? -1,
        eventStore: {
          maxEventsPerInstance: this.#settings['event-store']['max-events-per-instance'],
          retentionAfterDeregistration: this.#settings['event-store']['retention-after-deregistration'],
          maxDeregisteredInstances: this.#settings['event-store']['max-deregistered-instances'],
          maxDetailsBytes: this.#settings['event-store']['max-details-bytes'],
        },
        about: () => describeDaemon(prepared),
      },
      log: log.child(item.plugin.name),
      bus,
      registry: this.#registry,
      outbound,
      views,
      http: this.#routesFor(),
      services: services.forPlugin(item.plugin.name, item.rank),
      signal: this.#abort.signal,
      requestExit: (reason, exitCode = 1) => {
        log.error(`plugin ${item.plugin.name} asks the daemon to exit: ${reason}`);
        this.#onExitRequest(exitCode);
      },
    });
    this.#host = new PluginHost(prepared.plugins, contextOf, log, this.#settings['plugin-timeout']);
    for (const line of [...prepared.deprecations, ...prepared.warnings]) log.warn(line);
  }

  /** Sets what a plugin's `requestExit` does (main.ts: the same shutdown as SIGTERM, then that exit code). */
  onExitRequest(handler: (exitCode: number) => void): void {
    this.#onExitRequest = handler;
  }

  get phase(): Phase {
    return this.#phase;
  }

  /** The bus, for embedding and tests: e.g. awaiting an event instead of polling. */
  get bus(): EventBus {
    return this.#bus;
  }

  /** The registry facade plugins get, for embedding and tests. */
  get registry(): InstanceRegistry {
    return this.#registry;
  }

  /** The base URL (context path included) once listening. */
  get url(): string | undefined {
    return this.#url;
  }

  /** setup → listen → start. On failure everything started is stopped again and the error names the plugin. */
  async start(): Promise<string> {
    if (this.#phase !== 'stopped') throw new VigilError('ERR_PHASE', `cannot start a kernel that is ${this.#phase}`);
    this.#phase = 'starting';
    try {
      await this.#host.setup();
      // After every setup (a plugin may provide these) and before anything is served or started:
      // what no plugin provides is one process's own.
      this.#serviceRegistry.provideDefault(EVENT_LOG, new MemoryEventLog(runSeqBase(), this.#settings['event-store']['max-deregistered-instances']));
      this.#serviceRegistry.provideDefault(LEASES, SINGLE_NODE_LEASES);
      this.#serviceRegistry.provideDefault(OWNERSHIP, SINGLE_NODE_OWNERSHIP);
      this.#serviceRegistry.provideDefault(SHARED_STATE, new LocalSharedState());
      this.#serviceRegistry.provideDefault(EVENT_OUTBOX, new LocalOutbox(this.#bus));
      await this.#registry.open(this.#services.use(EVENT_LOG)!, this.#services.use(LEASES)!);
      const contributions = this.#services.collect(ALLOWED_HOSTS);
      const edge = this.#parts.httpEdge(this.#settings.server, {
        listenHost: this.#settings.host,
        contributedHosts: () => contributions.flatMap((source) => source.hosts()),
        http: this.#routesFor(),
        log: this.#log,
      });
      this.#edge = edge;
      // Host is checked by the router, so that a request without one (or with a refused one) also gets a JSON error.
      this.#server = createServer({
        requireHostHeader: false,
        // Node's default, named because headersTimeout (in the edge's options) must not exceed it.
        requestTimeout: 300_000,
        ...edge.serverOptions,
      }, this.#router.build(edge));
      edge.guard(this.#server);
      await listen(this.#server, this.#settings.port, this.#settings.host);
      const { port } = this.#server.address() as AddressInfo;
      this.#boundPort = port;
      const host = this.#settings.host.includes(':') ? `[${this.#settings.host}]` : this.#settings.host;
      this.#url = `http://${host}:${port}${this.#settings['context-path']}`;
      await this.#host.start();
    } catch (error) {
      await this.#closeServer(1000);
      await this.#registry.close().catch(() => undefined);
      this.#phase = 'stopped';
      throw error;
    }
    this.#phase = 'started';
    this.#log.info(listeningLine(this.#url!, this.#settings.host, this.#boundPort!, this.#settings['context-path']), { plugins: this.#host.report() });
    return this.#url;
  }

  /**
   * Stops within `shutdown-timeout`: stop accepting, abort streams and requests (the signal),
   * stop plugins in reverse, then close every remaining connection.
   */
  async stop(): Promise<void> {
    if (this.#phase !== 'started') return;
    this.#phase = 'stopping';
    await this.#reloading;
    const budget = this.#settings['shutdown-timeout'];
    const deadline = Date.now() + budget;
    this.#server?.close();
    this.#server?.closeIdleConnections();
    this.#abort.abort();
    await this.#host.stop(Math.max(1, deadline - Date.now() - 200));
    await this.#closeServer(Math.max(1, deadline - Date.now()));
    await this.#registry.close().catch((error: unknown) => this.#log.error(`closing the event log failed: ${messageOf(error)}`));
    this.#phase = 'stopped';
    this.#log.info('stopped');
  }

  /**
   * Applies a freshly prepared (so already valid) config to the running kernel: the changed
   * `RELOADABLE_KERNEL_KEYS` (`server` for new connections and requests), and each changed plugin
   * section through that plugin's `reload`. Everything else that changed is reported as needing a
   * restart and keeps its running value. Reloads run one at a time; no connection or stream is touched.
   */
  reload(next: Prepared): Promise<ReloadReport> {
    const run = this.#reloading.then(() => this.#reload(next));
    this.#reloading = run.catch(() => undefined);
    return run;
  }

  async #reload(next: Prepared): Promise<ReloadReport> {
    if (this.#phase !== 'started') throw new VigilError('ERR_PHASE', `cannot reload a kernel that is ${this.#phase}`);
    const plan = planReload(this.#settings, this.#configs, next);
    const report: ReloadReport = { applied: [], restart: [...plan.restart], failed: [] };
    const settings: Record<string, unknown> = { ...this.#settings };
    for (const key of plan.kernel) {
      if (key === 'log-level') this.#log.setLevel?.(next.settings['log-level']);
      if (key === 'access') this.#access.replace(next.settings.access);
      if (key === 'metadata-keys-to-sanitize') this.#views.replace(next.settings['metadata-keys-to-sanitize']);
      if (key === 'server') this.#edge?.reload(next.settings.server);
      settings[key] = next.settings[key];
      report.applied.push(key);
    }
    this.#settings = settings as KernelConfig;
    for (const change of plan.sections) {
      try {
        const result = await this.#host.reload(change.name, change.config);
        if (result === false) {
          report.restart.push(`${change.key} (plugin "${change.name}" cannot apply changes while running)`);
          continue;
        }
        this.#configs.get(change.name)!.config = change.config;
        report.applied.push(change.key);
        report.restart.push(...result.restart.map((key) => `${change.key}.${key}`));
      } catch (error) {
        report.failed.push(`${change.key}: ${messageOf(error)}`);
      }
    }
    this.#bus.emit('config.reloaded', report);
    return report;
  }

  async #closeServer(graceMs: number): Promise<void> {
    const server = this.#server;
    if (!server?.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), Math.min(graceMs, 250));
    await closed;
    clearTimeout(timer);
  }

  #routesFor(): PluginContext['http'] {
    const router = this.#router;
    return {
      contextPath: router.contextPath,
      route: (method, path, handler, options) => {
        const methods: readonly HttpMethod[] = typeof method === 'string' ? [method as HttpMethod] : method;
        for (const each of methods) router.add(each, path, handler, options);
      },
      hook: (stage, hook) => router.hook(stage, hook),
      trustOrigin: (trust) => router.trustOrigin(trust),
      readJson: (req) => readJsonBody(req),
      sendJson: (res, status, body, headers) => router.sendJson(res, status, body, headers),
      sendJsonArray: (res, status, items, view, headers) => sendJsonArray(res, status, items, view, headers),
      sendError: (req, res, status, message, headers) => router.sendError(req, res, status, message, headers),
      routes: () => router.routes(),
      onResponse: (listener) => router.onResponse(listener),
    };
  }
}

/** The composition root: one child container per kernel, so many kernels can live in one process. */
function compose(settings: KernelConfig, log: Logger): DependencyContainer {
  const scope = container.createChildContainer();
  scope.register(SETTINGS, { useValue: settings });
  scope.register(LOGGER, { useValue: log });
  // Each factory is new per compose() call, so its cached instance belongs to this kernel alone.
  const single = <T>(factory: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory(factory) });
  scope.register(EventBus, single(() => new EventBus((name, error) => {
    log.error(`a handler of "${name}" failed: ${messageOf(error)}`, { error: error instanceof Error ? error.stack : String(error) });
  })));
  scope.register(InstanceRegistry, single((c) => new InstanceRegistry(c.resolve(EventBus), {
    retentionAfterDeregistration: settings['event-store']['retention-after-deregistration'],
    maxDetailsBytes: settings['event-store']['max-details-bytes'],
    maxEventsPerInstance: settings['event-store']['max-events-per-instance'],
    log: log.child('registry'),
  })));
  scope.register(Router, single((c) => new Router(settings['context-path'], c.resolve<Logger>(LOGGER).child('http'))));
  scope.register(ServiceRegistry, single(() => new ServiceRegistry()));
  return scope;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // A deeper accept queue than Node's 511: a fleet re-registering at once after a restart is a burst of connections.
    server.listen({ port, host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
