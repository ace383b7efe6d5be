import * as assert from 'uvu/assert';
import { startDaemon, type Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually, type Reply } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { LONG } from '../../hardening/support/settings.js';
import { assertRefused } from './link-support.js';
import { FAST, assertNoDuplicates, converged, startNodes, stopAll, withDiagnosis, type WireEvent } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
const running: Daemon[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
});

test.after(async () => {
  await stopAll(running.splice(0));
  await fleet?.close();
  await redis?.stop();
});

const seesThree = async (node: Daemon) => /^vigil_cluster_nodes 3$/m.test((await call('GET', `${node.url}/metrics`)).text);

/**
 * Steady load on the nodes a load balancer routes to: a registration of a new instance every
 * 50 ms and two reads (the instance list, the event list) alongside, each sent to the next node in
 * rotation. A registration refused with 503 + Retry-After is sent again, as a client does.
 * Records every reply that is neither a success nor such a refusal.
 */
class Load {
  readonly rotation: Daemon[];
  readonly registered = new Set<string>();
  readonly failures: string[] = [];
  refused = 0;
  readonly #inFlight = new Map<Daemon, number>();
  #next = 0;
  #k = 1000;
  #running = true;
  readonly #loop: Promise<void>;

  constructor(nodes: readonly Daemon[]) {
    this.rotation = [...nodes];
    this.#loop = this.#run();
  }

  /** Whether no request to `node` is under way (it left the rotation, and what was sent to it before is answered). */
  drained(node: Daemon): boolean {
    return !this.#inFlight.get(node);
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  #pick(): Daemon {
    this.#next = (this.#next + 1) % this.rotation.length;
    return this.rotation[this.#next]!;
  }

  async #run(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    while (this.#running) {
      const k = (this.#k += 1);
      const work = Promise.all([this.#register(k), this.#read('/instances'), this.#read('/instances/events')]).then(() => undefined);
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all(inFlight);
  }

  async #register(k: number): Promise<void> {
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      const node = this.#pick();
      const reply = await this.#send(node, 'POST', '/instances', fleet!.registration(k, 'rolling'));
      if (reply?.status === 201) {
        this.registered.add((reply.json as { id: string }).id);
        return;
      }
      if (reply?.status !== 503) return;
      this.refused += 1;
      try {
        assertRefused(reply, `registration ${k} on ${node.url}`);
      } catch (error) {
        this.failures.push((error as Error).message);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.failures.push(`registration ${k}: refused 20 times`);
  }

  async #read(path: string): Promise<void> {
    const reply = await this.#send(this.#pick(), 'GET', path);
    if (reply && reply.status !== 200 && reply.status !== 503) this.failures.push(`GET ${path}: ${reply.status} ${reply.text.slice(0, 200)}`);
    else if (reply?.status === 503) assertRefusedInto(this.failures, reply, `GET ${path}`);
  }

  async #send(node: Daemon, method: string, path: string, json?: unknown): Promise<Reply | undefined> {
    this.#inFlight.set(node, (this.#inFlight.get(node) ?? 0) + 1);
    try {
      const reply = await call(method, `${node.url}${path}`, json === undefined ? {} : { json });
      if (method === 'POST' && reply.status !== 201 && reply.status !== 503) this.failures.push(`${method} ${path} on ${node.url}: ${reply.status} ${reply.text.slice(0, 200)}`);
      return reply;
    } catch (error) {
      this.failures.push(`${method} ${path} on ${node.url}: ${(error as Error).message}`);
      return undefined;
    } finally {
      this.#inFlight.set(node, this.#inFlight.get(node)! - 1);
    }
  }
}

function assertRefusedInto(failures: string[], reply: Reply, what: string): void {
  try {
    assertRefused(reply, what);
  } catch (error) {
    failures.push((error as Error).message);
  }
}

/**
 * A rolling restart of all three nodes under steady registration and read load, as an
 * orchestrator does it: each node in turn leaves the load balancer's rotation, stops (SIGTERM),
 * starts again with the same config and rejoins the rotation once it sees the whole cluster. No
 * request fails except with 503 + Retry-After, every registration that succeeded is in every
 * node's list once, and every node ends with the same events.
 */
async function rollingRestart(): Promise<void> {
  // The timings notify-failover gives a loaded machine: a node slow past heartbeat-ttl rightly steps back, and would blur what this measures.
  const nodes = await startNodes(3, {
    redisUrl: redis!.url,
    cluster: { 'heartbeat-interval': '500ms', 'heartbeat-ttl': '3s', 'command-timeout': '2s' },
    config: { monitor: { ...FAST.monitor, 'status-interval': '1s', 'status-lifetime': '800ms', 'default-timeout': '2s' } },
  });
  running.push(...nodes);
  await eventually(async () => (await Promise.all(nodes.map(seesThree))).every(Boolean), 'every node seeing three nodes', 15_000);
  const load = new Load(nodes);
  await withDiagnosis(running, async () => {
    try {
      for (let n = 0; n < 3; n += 1) {
        const old = load.rotation[n]!;
        // Out of the rotation first, as a load balancer is told before a pod stops.
        const others = load.rotation.filter((node) => node !== old);
        load.rotation.splice(0, load.rotation.length, ...others);
        const before = load.registered.size;
        // What was sent to it before is answered (an orchestrator's pre-stop wait): a stopping node aborts what is still under way.
        await eventually(() => load.drained(old), 'the requests under way to the leaving node answered', 10_000);
        const { code } = await old.stop();
        assert.is(code, 0, 'a clean stop');
        running.splice(running.indexOf(old), 1);
        const back = await startDaemon({}, { file: old.file });
        running.push(back);
        await eventually(() => seesThree(back), `node ${n + 1} back in a cluster of three`, 20_000);
        load.rotation.splice(n, 0, back);
        // Registrations went on meanwhile.
        await eventually(() => load.registered.size >= before + 10, 'registrations going on', 15_000);
      }
    } finally {
      await load.stop();
    }
    assert.equal(load.failures, [], 'every request succeeded or was refused with 503 + Retry-After');
    const events = await converged(running, 20_000);
    assertNoDuplicates(events);
    const recorded = new Set(events.filter((event: WireEvent) => event.type === 'REGISTERED').map((event) => event.instance));
    const missing = [...load.registered].filter((id) => !recorded.has(id));
    assert.equal(missing, [], `every registration that succeeded is recorded (${load.registered.size} registered, ${load.refused} refusals sent again)`);
  });
}

if (LONG) test('a rolling restart of three nodes under registration and read load: no event lost, no request failed except with 503 + Retry-After', rollingRestart);

test.run();
