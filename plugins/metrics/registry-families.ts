import { LabelledCounts } from '../../core/kits/runtime/index.js';
import { vigilVersion, type PluginContext, type VigilRequest } from '../../core/plugin-api.js';
import { type MetricFamily, type MetricSample } from '../../core/kits/services/index.js';
import type { ServerResponse } from 'node:http';


/** The statuses Vigil knows; any other string an instance reports is counted as `OTHER`, so labels stay bounded. */
const STATUSES = ['DOWN', 'OUT_OF_SERVICE', 'OFFLINE', 'UNKNOWN', 'RESTRICTED', 'UP'];
const KNOWN_STATUS = new Set(STATUSES);
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export const statusLabel = (status: string): string => (KNOWN_STATUS.has(status) ? status : 'OTHER');

/**
 * The kernel's own families: the registry read at scrape time (one pass over the instances),
 * and counters of recorded events and HTTP responses. Subscribes in `setup`; the counting per
 * event or response is one Map update. `vigil_instance_up` is left out of the registry unless
 * `metrics.per-instance` is on.
 */
export function registryFamilies(ctx: PluginContext<unknown>): MetricFamily[] {
  const { registry } = ctx;
  const registrations = new LabelledCounts();
  const deregistrations = new LabelledCounts();
  const statusChanges = new LabelledCounts(['from', 'to']);
  const requests = new LabelledCounts(['method', 'route', 'code_class']);
  ctx.bus.on('instance.changed', ({ event, previous }) => {
    if (event.type === 'REGISTERED') registrations.inc();
    else if (event.type === 'DEREGISTERED') deregistrations.inc();
    else if (event.type === 'STATUS_CHANGED') statusChanges.inc({ from: statusLabel(previous.statusInfo.status), to: statusLabel(event.statusInfo.status) });
  });
  ctx.http.onResponse((req: VigilRequest, res: ServerResponse) => {
    const method = req.method !== undefined && METHODS.has(req.method) ? req.method : 'OTHER';
    requests.inc({ method, route: req.route ?? 'unmatched', code_class: `${Math.floor(res.statusCode / 100)}xx` });
  });

  const byApplication = (): Map<string, Map<string, number>> => {
    const counts = new Map<string, Map<string, number>>();
    for (const instance of registry.list()) {
      const name = instance.registration!.name;
      let statuses = counts.get(name);
      if (!statuses) counts.set(name, (statuses = new Map(STATUSES.map((status) => [status, 0]))));
      const status = statusLabel(instance.statusInfo.status);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    return counts;
  };
  const counter = (name: string, help: string, counts: LabelledCounts, labelNames: string[] = []): MetricFamily =>
    ({ name, help, type: 'counter', labelNames, collect: () => (labelNames.length === 0 && counts.samples().length === 0 ? [{ value: 0 }] : counts.samples()) });

  return [
    { name: 'vigil_build_info', help: 'Vigil version and Node.js version; always 1', type: 'gauge', labelNames: ['version', 'nodejs'], collect: () => [{ labels: { version: vigilVersion(), nodejs: process.version }, value: 1 }] },
    { name: 'vigil_applications', help: 'Applications with at least one registered instance', type: 'gauge', collect: () => [{ value: new Set(registry.list().map((i) => i.registration!.name)).size }] },
    {
      name: 'vigil_instances', help: 'Registered instances by application and status (statuses Vigil does not know count as OTHER)', type: 'gauge', labelNames: ['application', 'status'],
      collect: () => {
        const samples: MetricSample[] = [];
        for (const [application, statuses] of byApplication()) for (const [status, value] of statuses) samples.push({ labels: { application, status }, value });
        return samples;
      },
    },
    counter('vigil_registrations_total', 'REGISTERED events recorded (a re-registration that changes the registration is not one)', registrations),
    counter('vigil_deregistrations_total', 'DEREGISTERED events recorded', deregistrations),
    counter('vigil_status_changes_total', 'STATUS_CHANGED events recorded, by previous and new status', statusChanges, ['from', 'to']),
    { name: 'vigil_events_held', help: 'Instance events held in memory (the history served by /instances/events)', type: 'gauge', collect: () => [{ value: registry.eventCount }] },
    counter('vigil_http_requests_total', 'HTTP responses sent, by method, route as registered (never the raw path; "unmatched" when no route matches) and status class', requests, ['method', 'route', 'code_class']),
    {
      name: 'vigil_instance_up', help: 'Per registered instance: 1 when its status is UP, else 0 (only with metrics.per-instance: true)', type: 'gauge', labelNames: ['application', 'instance_id'],
      collect: () => registry.list().map((instance) => ({ labels: { application: instance.registration!.name, instance_id: instance.id }, value: instance.statusInfo.status === 'UP' ? 1 : 0 })),
    },
  ];
}
