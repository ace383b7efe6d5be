import type { Registration } from '../../../../core/domain/index.js';
import { closedPort } from '../../../plugins/monitor/support.js';
import { EchoActuator } from '../echo-actuator.js';
import { ADMIN, basic, startFullKernel, type FullKernel } from '../full-kernel.js';
import { sendRaw } from '../raw-http.js';
import type { FuzzTargets } from './arbitraries.js';
import type { Mutation, World } from './oracle.js';

const TARGET_NAME = 'target-app';
const GONE_NAME = 'gone-app';
const DEFAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const DEFAULT_HEADERS = ['Accept', 'Authorization', 'Content-Type', 'X-Requested-With'];

/**
 * The arranged registry a fuzz run works against: a healthy instance (a real echo server) with
 * its endpoints detected and info read, and a deregistered one the registry still holds. After a
 * request that legitimately changed it, `restore` puts it back and waits until monitoring is
 * quiet again, so every later request is judged against the same state.
 */
export class FuzzWorld {
  readonly model: World & { held: Set<string> };

  private constructor(
    readonly full: FullKernel,
    readonly echo: EchoActuator,
    readonly targets: FuzzTargets,
    private readonly targetRegistration: Registration,
  ) {
    this.model = {
      contextPath: targets.contextPath,
      registered: new Map([[targets.targetId, TARGET_NAME]]),
      held: new Set([targets.targetId, targets.goneId]),
      endpoints: new Map([[targets.targetId, new Set(targets.detected)]]),
      allowedMethods: DEFAULT_METHODS,
      allowedHeaders: DEFAULT_HEADERS,
    };
  }

  static async create(config: Record<string, unknown> = {}): Promise<FuzzWorld> {
    const echo = await EchoActuator.start();
    const full = await startFullKernel({ 'log-level': 'info', ...config });
    const { tk } = full;
    const contextPath = new URL(tk.url).pathname.replace(/\/$/, '');
    const port = await closedPort();
    const register = async (body: Record<string, unknown>) => {
      const text = JSON.stringify(body);
      const reply = await sendRaw(full.port, Buffer.from(
        `POST ${contextPath}/instances HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: ${basic(ADMIN.username, ADMIN.password)}\r\n`
        + `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      ));
      if (reply.status !== 201) throw new Error(`registration failed: ${reply.status} ${reply.body.toString()}`);
      return (JSON.parse(reply.body.toString()) as { id: string }).id;
    };
    const targetId = await register({ name: TARGET_NAME, healthUrl: echo.healthUrl, managementUrl: echo.managementUrl, metadata: { 'tags.env': 'fuzz' } });
    const goneId = await register({ name: GONE_NAME, healthUrl: `http://127.0.0.1:${port}/gone/health` });
    await tk.kernel.registry.deregister(goneId);
    await settled(full, targetId, -1);
    const targets: FuzzTargets = { contextPath, targetId, targetName: TARGET_NAME, goneId, goneName: GONE_NAME, detected: ['health', ...echo.links.filter((l) => l !== 'health')], closedPort: port };
    return new FuzzWorld(full, echo, targets, tk.kernel.registry.get(targetId)!.registration!);
  }

  /** Every event and every instance's version: equal before and after means nothing changed. */
  snapshot(): string {
    const registry = this.full.tk.kernel.registry;
    return `${registry.lastSeq}|${registry.list().map((i) => `${i.id}@${i.version}`).sort().join(',')}`;
  }

  /** Checks that `mutation` happened; returns a complaint or undefined. */
  check(mutation: Mutation): string | undefined {
    const registry = this.full.tk.kernel.registry;
    if (mutation.kind === 'registered') return registry.get(mutation.id)?.registered ? undefined : `instance ${mutation.id} was not registered`;
    const still = mutation.ids.filter((id) => registry.get(id)?.registered);
    return still.length === 0 ? undefined : `still registered: ${still.join(', ')}`;
  }

  /** Back to the arranged state: what a request registered is deregistered (and stays held), the target comes back. */
  async restore(): Promise<void> {
    const registry = this.full.tk.kernel.registry;
    for (const instance of registry.list()) {
      if (this.model.registered.has(instance.id)) continue;
      await registry.deregister(instance.id);
      this.model.held.add(instance.id);
    }
    const target = this.targets.targetId;
    if (!registry.get(target)?.registered) {
      const { event } = await registry.register(this.targetRegistration);
      await settled(this.full, target, event!.version);
    }
  }

  async close(): Promise<void> {
    await this.full.tk.stop();
    await this.echo.close();
  }
}

/** Monitoring of the target has finished its round: status, endpoints, then info (the last event it causes). */
async function settled(full: FullKernel, id: string, afterVersion: number): Promise<void> {
  await full.tk.waitForEvent((e) => e.instance === id && e.type === 'INFO_CHANGED' && e.version > afterVersion, `INFO_CHANGED of ${id}`, 10_000);
}
