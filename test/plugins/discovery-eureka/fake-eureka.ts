import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenLocal, type LocalServer } from '../../support/local-server.js';
import type { PeerInstance } from '../../support/discovery-scenarios.js';

/**
 * `modern`: what Spring Cloud's Eureka server writes (lists, numeric ports, plain metadata);
 * `legacy`: Netflix's older codec (one-element lists as the element, ports as strings, an empty
 * metadata map as `{"@class": "java.util.Collections$EmptyMap"}`).
 */
export type Shape = 'modern' | 'legacy';

export interface EurekaInstance extends PeerInstance {
  readonly status?: string;
  readonly securePort?: number;
  /** Written as `secureHealthCheckUrl` (and the secure port enabled) when set. */
  readonly secureHealthCheckUrl?: string;
  readonly hostName?: string;
}

/**
 * A Eureka server's read API on loopback: `GET <base>/apps` as JSON when the client asks for
 * it, XML otherwise (Eureka's default), in either JSON shape; 500s when told to fail.
 */
export class FakeEureka {
  instances: readonly EurekaInstance[] = [];
  shape: Shape = 'modern';
  failing = false;
  /** Answered on every path instead of the applications, when set: a server that is not Eureka. */
  body: unknown;
  readonly requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  #server: LocalServer | undefined;

  constructor(readonly basePath = '/eureka') {}

  static async start(basePath?: string): Promise<FakeEureka> {
    const fake = new FakeEureka(basePath);
    const server = createServer((req, res) => {
      fake.requests.push({ url: req.url ?? '', headers: req.headers });
      if (fake.body !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fake.body));
      if (req.method !== 'GET' || req.url !== `${fake.basePath}/apps`) return void res.writeHead(404).end();
      if (fake.failing) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"Internal Server Error"}');
      if (!(req.headers.accept ?? '').includes('application/json')) {
        return void res.writeHead(200, { 'content-type': 'application/xml' }).end(fake.xml());
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fake.json()));
    });
    fake.#server = await listenLocal(server);
    fake.port = fake.#server.port;
    return fake;
  }

  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}${this.basePath}`;
  }

  close(): Promise<void> {
    return this.#server?.close() ?? Promise.resolve();
  }

  json(): unknown {
    const legacy = this.shape === 'legacy';
    const one = <T>(items: T[]): T | T[] => (legacy && items.length === 1 ? items[0]! : items);
    const names = [...new Set(this.instances.map((instance) => instance.name.toUpperCase()))];
    return {
      applications: {
        versions__delta: '1',
        apps__hashcode: names.map((name) => `UP_${this.instances.filter((i) => i.name.toUpperCase() === name).length}_`).join(''),
        application: one(names.map((name) => ({
          name,
          instance: one(this.instances.filter((instance) => instance.name.toUpperCase() === name).map((instance) => this.#instance(instance, legacy))),
        }))),
      },
    };
  }

  #instance(instance: EurekaInstance, legacy: boolean): Record<string, unknown> {
    const app = instance.name.toUpperCase();
    const host = instance.hostName ?? instance.host;
    const secure = instance.securePort !== undefined;
    const metadata = instance.metadata && Object.keys(instance.metadata).length > 0 ? instance.metadata : legacy ? { '@class': 'java.util.Collections$EmptyMap' } : {};
    return {
      instanceId: `${host}:${instance.name}:${instance.port}`,
      hostName: host,
      app,
      ipAddr: instance.host,
      status: instance.status ?? 'UP',
      overriddenStatus: 'UNKNOWN',
      port: { $: legacy ? String(instance.port) : instance.port, '@enabled': 'true' },
      securePort: { $: legacy ? String(instance.securePort ?? 443) : instance.securePort ?? 443, '@enabled': String(secure) },
      countryId: 1,
      dataCenterInfo: { '@class': 'com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo', name: 'MyOwn' },
      leaseInfo: { renewalIntervalInSecs: 30, durationInSecs: 90, registrationTimestamp: 1764000000000, lastRenewalTimestamp: 1764000030000, evictionTimestamp: 0, serviceUpTimestamp: 1764000000000 },
      metadata,
      homePageUrl: `http://${host}:${instance.port}/`,
      statusPageUrl: `http://${host}:${instance.port}/actuator/info`,
      healthCheckUrl: `http://${host}:${instance.port}/actuator/health`,
      ...(instance.secureHealthCheckUrl ? { secureHealthCheckUrl: instance.secureHealthCheckUrl } : {}),
      vipAddress: instance.name,
      secureVipAddress: instance.name,
      isCoordinatingDiscoveryServer: 'false',
      lastUpdatedTimestamp: '1764000000000',
      lastDirtyTimestamp: '1764000000000',
      actionType: 'ADDED',
    };
  }

  xml(): string {
    const instances = this.instances.map((instance) => `<instance><hostName>${instance.host}</hostName><app>${instance.name.toUpperCase()}</app>`
      + `<ipAddr>${instance.host}</ipAddr><status>UP</status><port enabled="true">${instance.port}</port></instance>`).join('');
    return `<applications><versions__delta>1</versions__delta><apps__hashcode>UP_${this.instances.length}_</apps__hashcode><application>${instances}</application></applications>`;
  }
}
