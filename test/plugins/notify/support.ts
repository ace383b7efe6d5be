import { changeStatusCommand, type PluginContext, type VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';

let counter = 0;

/** A kernel with `notify` and the given channel plugins; nothing polls instances, tests set statuses. */
export function notifyKernel(plugins: readonly (string | VigilPlugin<never>)[], config: Record<string, unknown> = {}): Promise<TestKernel> {
  return startTestKernel({ plugins: ['rest-api', 'notify', ...plugins], config });
}

/** Registers an instance (no server behind it: nothing calls it) and resolves with its id. */
export async function registerInstance(tk: TestKernel, name = 'orders', extra: { metadata?: Record<string, string>; serviceUrl?: string } = {}): Promise<string> {
  counter += 1;
  const base = `http://127.0.0.1:9/${name.replace(/[^a-z0-9]/gi, '')}-${counter}`;
  const { id } = await tk.kernel.registry.register({
    name,
    healthUrl: `${base}/actuator/health`,
    managementUrl: `${base}/actuator`,
    serviceUrl: extra.serviceUrl ?? `${base}/`,
    source: 'http-api',
    metadata: extra.metadata ?? {},
  });
  return id;
}

/** Records a status change, as the monitor would. */
export async function setStatus(tk: TestKernel, id: string, status: string, details: Record<string, unknown> = {}): Promise<void> {
  await tk.kernel.registry.apply(id, changeStatusCommand({ status, details }));
}

/** The JSON of `GET /notifications`. */
export async function notificationsStatus(tk: TestKernel): Promise<{ channels: Array<Record<string, unknown>>; pipeline: Record<string, number> }> {
  const res = await fetch(`${tk.url}/notifications`);
  return (await res.json()) as { channels: Array<Record<string, unknown>>; pipeline: Record<string, number> };
}

/** A plugin that exposes its context to the test (to reach services). */
export function contextProbe(): { plugin: VigilPlugin<never>; ctx: () => PluginContext<unknown> } {
  let captured: PluginContext<unknown> | undefined;
  const plugin = { name: 'context-probe', configKey: null, setup(ctx: PluginContext<unknown>) { captured = ctx; } } as VigilPlugin<never>;
  return { plugin, ctx: () => captured! };
}

/** A name an attacker registers: every channel must show it, never act on it. */
export const HOSTILE = '<!channel> </b><script>x</script> @everyone [a](https://evil.example) *b*';

/** The registration URLs of an instance, for exact payloads. */
export function urlsOf(tk: TestKernel, id: string): { healthUrl: string; managementUrl: string; serviceUrl: string } {
  const registration = tk.kernel.registry.get(id)!.registration!;
  return { healthUrl: registration.healthUrl, managementUrl: registration.managementUrl!, serviceUrl: registration.serviceUrl! };
}
