import type { IncomingMessage, ServerResponse } from 'node:http';
import { ACTUATOR_V3, FakeActuator } from '../fake-actuator.js';
import * as F from './fixtures.js';
import { jolokiaAgent, type JolokiaLog } from './jolokia.js';
import { logLines, serveLogfile } from './logfile.js';
import { METRICS, serveMetric } from './metrics.js';

/** Every endpoint a Spring Boot 3 service with Spring Cloud, Flyway, Liquibase, Quartz, Jolokia and Gateway exposes. */
export const ALL_ENDPOINTS = [
  'health', 'info', 'metrics', 'env', 'refresh', 'beans', 'configprops', 'conditions', 'mappings', 'scheduledtasks', 'logfile', 'loggers',
  'threaddump', 'heapdump', 'jolokia', 'httpexchanges', 'sessions', 'caches', 'flyway', 'liquibase', 'auditevents', 'startup', 'quartz', 'sbom',
  'gateway', 'restart',
] as const;

export interface FakeBootOptions {
  /** Endpoints in the actuator index (default: all). */
  readonly endpoints?: readonly string[];
  /** Lines in the log file to start with. */
  readonly logLines?: number;
  readonly info?: unknown;
  readonly health?: unknown;
}

type Level = string | null;
interface Session { readonly id: string; readonly user: string; readonly attributeNames: readonly string[]; readonly creationTime: string; readonly lastAccessedTime: string; readonly maxInactiveInterval: number; readonly expired: boolean }

const json = (res: ServerResponse, body: unknown, status = 200, type = ACTUATOR_V3) => res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
const bodyOf = <T>(body: Buffer): T => JSON.parse(body.toString('utf8')) as T;

/**
 * A fake Spring Boot 3 instance: a real HTTP server whose actuator endpoints answer as Boot's do,
 * with state that writes change (logger levels, environment properties, caches, sessions, MBean
 * attributes) and a log file that grows, so a browser test can check both what the dashboard
 * shows and that each write reached the instance (`requests`, `jolokia`, `evictions`...).
 */
export class FakeBoot {
  readonly loggers: Record<string, { configuredLevel: Level; effectiveLevel: string }> = {
    ROOT: { configuredLevel: 'INFO', effectiveLevel: 'INFO' },
    'com.example.billing': { configuredLevel: null, effectiveLevel: 'INFO' },
    'com.example.billing.payments.PaymentClient': { configuredLevel: 'DEBUG', effectiveLevel: 'DEBUG' },
    'com.zaxxer.hikari': { configuredLevel: 'WARN', effectiveLevel: 'WARN' },
    'org.springframework.web': { configuredLevel: null, effectiveLevel: 'INFO' },
  };
  /** Properties set with `POST /actuator/env`, until `DELETE /actuator/env`. */
  readonly envOverrides = new Map<string, string>();
  /** Cache names by cache manager; evicting records the name (`*` for all) in `evictions`. */
  readonly caches = new Map<string, string[]>([['cacheManager', ['invoices', 'customers', 'countries']]]);
  readonly evictions: string[] = [];
  readonly sessions: Session[] = [
    { id: '4db5efcc-99cb-4d05-a52c-b49acfbb7ea9', user: 'alice', attributeNames: ['SPRING_SECURITY_CONTEXT', 'cart'], creationTime: '2026-01-05T08:12:00Z', lastAccessedTime: '2026-01-05T09:58:41Z', maxInactiveInterval: 1800, expired: false },
    { id: '9f1f2b66-2c88-4c59-a1be-0f9f8a4b0c11', user: 'alice', attributeNames: ['SPRING_SECURITY_CONTEXT'], creationTime: '2026-01-04T17:40:00Z', lastAccessedTime: '2026-01-04T18:02:13Z', maxInactiveInterval: 1800, expired: false },
    { id: 'c2a3e1d0-7b7e-4b1f-9d6a-3c1e2f4a5b6c', user: 'bob', attributeNames: ['SPRING_SECURITY_CONTEXT'], creationTime: '2026-01-05T09:01:00Z', lastAccessedTime: '2026-01-05T09:55:02Z', maxInactiveInterval: 1800, expired: false },
  ];
  refreshes = 0;
  gatewayRefreshes = 0;
  #log: Buffer;
  #logCount: number;
  #tick = 0;
  readonly #jolokia = jolokiaAgent();

  private constructor(readonly actuator: FakeActuator, options: FakeBootOptions) {
    this.#logCount = options.logLines ?? 400;
    this.#log = Buffer.from(logLines(this.#logCount));
  }

  static async start(options: FakeBootOptions = {}): Promise<FakeBoot> {
    const endpoints = options.endpoints ?? ALL_ENDPOINTS;
    const actuator = await FakeActuator.start({
      links: endpoints,
      health: options.health ?? { status: 'UP', groups: ['liveness', 'readiness'], components: { db: { status: 'UP', details: { database: 'PostgreSQL', validationQuery: 'isValid()' } }, diskSpace: { status: 'UP', details: { total: 107_374_182_400, free: 61_203_283_968, threshold: 10_485_760, path: '/srv/app/.', exists: true } }, ping: { status: 'UP' } } },
      info: options.info ?? { build: { artifact: 'billing', name: 'billing', group: 'com.example', version: '3.1.4', time: '2026-01-02T09:14:27.000Z' }, java: { version: '21.0.3' }, process: { pid: 4242 } },
    });
    const fake = new FakeBoot(actuator, options);
    fake.#routes();
    return fake;
  }

  get jolokia(): JolokiaLog {
    return this.#jolokia.log;
  }

  get requests() {
    return this.actuator.requests;
  }

  requestsTo(sub: string, method?: string) {
    return this.actuator.requestsTo(sub, method);
  }

  registration(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return this.actuator.registration(name, extra);
  }

  /** Appends `count` lines to the log file, as the application writing on. */
  appendLog(count: number): void {
    this.#log = Buffer.concat([this.#log, Buffer.from(logLines(count, this.#logCount))]);
    this.#logCount += count;
  }

  /** Starts a new log file with `count` lines, as a rolling policy does: the file gets shorter. */
  rotateLog(count: number): void {
    this.#log = Buffer.from(logLines(count, this.#logCount));
    this.#logCount += count;
  }

  get logSize(): number {
    return this.#log.length;
  }

  close(): Promise<void> {
    return this.actuator.close();
  }

  #routes(): void {
    const a = this.actuator;
    const on = (method: string, sub: string, handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void) => a.on(method, sub, { handler });
    const fixed = (sub: string, body: unknown) => a.on('GET', sub, { json: body, contentType: ACTUATOR_V3 });
    fixed('/beans', F.BEANS);
    fixed('/configprops', F.CONFIGPROPS);
    fixed('/conditions', F.CONDITIONS);
    fixed('/mappings', F.MAPPINGS);
    fixed('/scheduledtasks', F.SCHEDULED_TASKS);
    fixed('/httpexchanges', F.HTTP_EXCHANGES);
    fixed('/flyway', F.FLYWAY);
    fixed('/liquibase', F.LIQUIBASE);
    fixed('/startup', F.startupBody());
    fixed('/quartz', { jobs: { groups: Object.keys(F.QUARTZ_JOBS.groups) }, triggers: { groups: Object.keys(F.QUARTZ_TRIGGERS.groups) } });
    fixed('/quartz/jobs', F.QUARTZ_JOBS);
    fixed('/quartz/triggers', F.QUARTZ_TRIGGERS);
    for (const [key, body] of Object.entries(F.QUARTZ_JOB_DETAILS)) fixed(`/quartz/jobs/${key}`, body);
    fixed('/sbom', { ids: ['application'] });
    on('GET', '/sbom/application', (req, res) => {
      // Boot serves an SBOM in its own media type only to an Accept that allows it.
      const accept = req.headers.accept ?? '*/*';
      if (!/\*\/\*|application\/vnd\.cyclonedx\+json/.test(accept)) return res.writeHead(406).end();
      json(res, F.SBOM, 200, 'application/vnd.cyclonedx+json');
    });
    fixed('/gateway/routes', F.GATEWAY_ROUTES);
    fixed('/gateway/globalfilters', F.GATEWAY_GLOBAL_FILTERS);
    on('POST', '/gateway/refresh', (_req, res) => { this.gatewayRefreshes += 1; res.writeHead(200).end(); });
    on('POST', '/restart', (_req, res) => json(res, { message: 'Restarting' }));
    on('GET', '/heapdump', (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(1024, 7)));

    fixed('/metrics', { names: Object.keys(METRICS).sort() });
    for (const name of Object.keys(METRICS)) on('GET', `/metrics/${name}`, (req, res) => serveMetric(name, req, res, (this.#tick += 1)));

    for (const method of ['GET', 'HEAD']) on(method, '/logfile', (req, res) => serveLogfile(req, res, this.#log));
    on('POST', '/jolokia', this.#jolokia.handle);
    on('GET', '/threaddump', (req, res) => {
      // Boot picks the text form when the client prefers text/plain, as a jstack-like file.
      if (/^\s*text\/plain/.test(req.headers.accept ?? '')) return res.writeHead(200, { 'content-type': 'text/plain;charset=UTF-8' }).end(F.THREAD_DUMP_TEXT);
      json(res, this.#threads());
    });
    this.#loggerRoutes();
    this.#envRoutes();
    this.#cacheRoutes();
    this.#sessionRoutes();
    on('GET', '/auditevents', (req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const after = query.get('after');
      json(res, { events: F.AUDIT_EVENTS.events.filter((event) => (!query.get('principal') || event.principal === query.get('principal'))
        && (!query.get('type') || event.type === query.get('type')) && (!after || event.timestamp > after)) });
    });
  }

  #threads(): unknown {
    const tick = (this.#tick += 1);
    const state = (period: number, states: string[]) => states[Math.floor(tick / period) % states.length]!;
    const frame = (className: string, methodName: string, lineNumber: number) => ({ className, methodName, fileName: `${className.split('.').at(-1)}.java`, lineNumber, nativeMethod: false });
    return {
      threads: [
        { threadName: 'main', threadId: 1, threadState: 'WAITING', daemon: false, lockName: 'java.lang.Object@5a2e4553', stackTrace: [frame('java.lang.Object', 'wait', -2), frame('com.example.billing.BillingApplication', 'main', 12)] },
        { threadName: 'http-nio-8080-exec-1', threadId: 41, threadState: state(2, ['RUNNABLE', 'WAITING']), daemon: true, stackTrace: [frame('sun.nio.ch.EPoll', 'wait', -2)] },
        { threadName: 'http-nio-8080-exec-2', threadId: 42, threadState: state(3, ['WAITING', 'RUNNABLE', 'BLOCKED']), daemon: true, lockName: 'com.example.billing.InvoiceService@1b2c3d', lockOwnerName: 'http-nio-8080-exec-1', stackTrace: [frame('com.example.billing.InvoiceService', 'create', 88)] },
        { threadName: 'HikariPool-1 housekeeper', threadId: 38, threadState: 'TIMED_WAITING', daemon: true, stackTrace: [frame('jdk.internal.misc.Unsafe', 'park', -2)] },
        { threadName: 'scheduling-1', threadId: 52, threadState: state(4, ['TIMED_WAITING', 'RUNNABLE']), daemon: false, stackTrace: [] },
      ],
    };
  }

  #loggerRoutes(): void {
    const a = this.actuator;
    a.on('GET', '/loggers', { handler: (_req, res) => json(res, { levels: ['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'], loggers: this.loggers, groups: { web: { members: ['org.springframework.web'] } } }) });
    for (const name of Object.keys(this.loggers)) {
      a.on('GET', `/loggers/${name}`, { handler: (_req, res) => json(res, this.loggers[name]) });
      a.on('POST', `/loggers/${name}`, {
        handler: (_req, res, body) => {
          const level = bodyOf<{ configuredLevel: Level }>(body).configuredLevel;
          this.loggers[name] = { configuredLevel: level, effectiveLevel: level ?? 'INFO' };
          res.writeHead(204).end();
        },
      });
    }
  }

  #envRoutes(): void {
    const a = this.actuator;
    const value = (v: unknown, origin?: string) => (origin ? { value: v, origin } : { value: v });
    a.on('GET', '/env', {
      handler: (_req, res) => json(res, {
        activeProfiles: ['prod'],
        propertySources: [
          { name: 'manager', properties: Object.fromEntries([...this.envOverrides].map(([key, v]) => [key, value(v)])) },
          { name: 'server.ports', properties: { 'local.server.port': value(8080) } },
          { name: 'systemProperties', properties: { 'java.version': value('21.0.3'), PID: value('4242'), 'user.timezone': value('UTC') } },
          { name: 'systemEnvironment', properties: { PATH: value('/usr/local/bin:/usr/bin', 'System Environment Property "PATH"'), SPRING_DATASOURCE_PASSWORD: value('******', 'System Environment Property "SPRING_DATASOURCE_PASSWORD"') } },
          { name: "Config resource 'class path resource [application.yml]' via location 'optional:classpath:/'", properties: { 'spring.application.name': value('billing', 'class path resource [application.yml] - 3:11'), 'billing.reminder-days': value(14, 'class path resource [application.yml] - 22:20'), 'billing.currency': value('EUR', 'class path resource [application.yml] - 21:15') } },
        ],
      }),
    });
    a.on('GET', '/env/PID', { handler: (_req, res) => json(res, { property: { source: 'systemProperties', value: '4242' }, activeProfiles: ['prod'], propertySources: [] }) });
    // Spring Cloud's writable environment: POST sets, DELETE resets, both through EnvironmentManager.
    a.on('OPTIONS', '/env', { handler: (_req, res) => res.writeHead(200, { allow: 'GET,HEAD,POST,DELETE,OPTIONS' }).end() });
    a.on('POST', '/env', {
      handler: (_req, res, body) => {
        const { name, value: v } = bodyOf<{ name: string; value: string }>(body);
        this.envOverrides.set(name, v);
        json(res, { [name]: v });
      },
    });
    a.on('DELETE', '/env', {
      handler: (_req, res) => {
        const reset = Object.fromEntries(this.envOverrides);
        this.envOverrides.clear();
        json(res, reset);
      },
    });
    a.on('POST', '/refresh', { handler: (_req, res) => { this.refreshes += 1; json(res, [...this.envOverrides.keys()]); } });
  }

  #cacheRoutes(): void {
    const a = this.actuator;
    a.on('GET', '/caches', {
      handler: (_req, res) => json(res, {
        cacheManagers: Object.fromEntries([...this.caches].map(([manager, names]) => [manager, { caches: Object.fromEntries(names.map((name) => [name, { target: 'com.github.benmanes.caffeine.cache.BoundedLocalCache$BoundedLocalManualCache' }])) }])),
      }),
    });
    a.on('DELETE', '/caches', { handler: (_req, res) => { this.evictions.push('*'); res.writeHead(204).end(); } });
    for (const [manager, names] of this.caches) {
      for (const name of names) {
        a.on('DELETE', `/caches/${name}`, {
          handler: (req, res) => {
            const wanted = new URL(req.url ?? '/', 'http://x').searchParams.get('cacheManager');
            if (wanted !== null && wanted !== manager) return res.writeHead(404).end();
            this.evictions.push(name);
            res.writeHead(204).end();
          },
        });
      }
    }
  }

  #sessionRoutes(): void {
    const a = this.actuator;
    const view = ({ user: _user, ...session }: Session) => session;
    a.on('GET', '/sessions', {
      handler: (req, res) => {
        const username = new URL(req.url ?? '/', 'http://x').searchParams.get('username');
        if (!username) return json(res, { timestamp: '2026-01-05T10:00:00Z', status: 400, error: 'Bad Request', path: '/actuator/sessions' }, 400, 'application/json');
        json(res, { sessions: this.sessions.filter((session) => session.user === username).map(view) });
      },
    });
    for (const session of [...this.sessions]) {
      a.on('GET', `/sessions/${session.id}`, { handler: (_req, res) => (this.sessions.includes(session) ? json(res, view(session)) : res.writeHead(404).end()) });
      a.on('DELETE', `/sessions/${session.id}`, {
        handler: (_req, res) => {
          const index = this.sessions.indexOf(session);
          if (index < 0) return res.writeHead(404).end();
          this.sessions.splice(index, 1);
          res.writeHead(204).end();
        },
      });
    }
  }
}
