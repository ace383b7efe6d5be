import { HttpError, definePlugin, type JsonViews, type VigilRequest } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE } from '../../core/kits/services/index.js';
import type { Instance } from '../../core/domain/index.js';
import { prometheusSdSchema, type PrometheusSdConfig } from './config.js';
import { policyKey, scrapeTarget, targetGroup } from './target-group.js';
import { TargetPolicy } from './target-policy.js';

const PARAMETERS = new Set(['application', 'status']);

/** `?application=a&application=b&status=UP`: each parameter may repeat (any of its values matches). */
function selection(req: VigilRequest): { applications: Set<string> | undefined; statuses: Set<string> | undefined } {
  const unknown = Object.keys(req.query).filter((key) => !PARAMETERS.has(key));
  if (unknown.length > 0) throw new HttpError(400, `unknown query parameter(s): ${unknown.join(', ')}; use application and status`);
  const values = (key: string) => {
    const raw = req.query[key];
    if (raw === undefined) return undefined;
    const list = (Array.isArray(raw) ? raw : [raw]).map((value) => value.trim());
    if (list.some((value) => value === '')) throw new HttpError(400, `query parameter '${key}' must not be empty`);
    return new Set(key === 'status' ? list.map((value) => value.toUpperCase()) : list);
  };
  return { applications: values('application'), statuses: values('status') };
}

/** An instance's target group as JSON text, and the `scheme://host` the outbound policy judges. */
interface Listed {
  readonly text: string;
  readonly policyKey: string;
}

/**
 * Each instance's target group as JSON text, kept per snapshot: snapshots are immutable, so an
 * instance that did not change since the last refresh costs a lookup. The sanitised registration
 * view and the config it was made with are kept too: when `metadata-keys-to-sanitize` or
 * `metadata-labels` changes (reload), the views or the config are new, and so is every group.
 */
function listedTargets(): (instance: Instance, views: JsonViews, config: PrometheusSdConfig) => Listed | undefined {
  const cache = new WeakMap<Instance, { readonly view: object; readonly config: PrometheusSdConfig; readonly listed: Listed | undefined }>();
  let labels = { config: undefined as PrometheusSdConfig | undefined, names: new Set<string>() };
  return (instance, views, config) => {
    const view = views.registration(instance.registration!);
    const cached = cache.get(instance);
    if (cached?.view === view && cached.config === config) return cached.listed;
    if (labels.config !== config) labels = { config, names: new Set(config['metadata-labels']) };
    const target = scrapeTarget(instance);
    const group = targetGroup(instance, views, labels.names, target);
    const listed = group && target ? { text: JSON.stringify(group), policyKey: policyKey(target.url) } : undefined;
    cache.set(instance, { view, config, listed });
    return listed;
  };
}

/**
 * `prometheus-sd`: `GET /prometheus/sd`, Prometheus's HTTP service discovery over the registry,
 * so Prometheus scrapes every registered instance without a bridge. The whole list every time
 * (`[]` when empty), as Prometheus requires; `?application=` and `?status=` select. Prometheus
 * calls every listed target with its own scrape credentials, so a target is listed only when the
 * outbound policy (`ssrf-protection`) lets Vigil itself call it.
 */
export default definePlugin<PrometheusSdConfig>({
  name: 'prometheus-sd',
  version: '1.0.0',
  configSchema: prometheusSdSchema,
  create(ctx) {
    const listed = listedTargets();
    const policy = new TargetPolicy(ctx.outbound, ctx.log);
    ctx.http.route('GET', '/prometheus/sd', async (req, res) => {
      const { applications, statuses } = selection(req);
      const config = ctx.config;
      const candidates: Listed[] = [];
      for (const instance of ctx.registry.list()) {
        if (applications && !applications.has(instance.registration!.name)) continue;
        if (statuses && !statuses.has(instance.statusInfo.status)) continue;
        const target = listed(instance, ctx.views, config);
        if (target !== undefined) candidates.push(target);
      }
      const permitted = await policy.permitted(candidates.map((target) => target.policyKey));
      const groups: string[] = [];
      for (const target of candidates) if (permitted(target.policyKey)) groups.push(target.text);
      const text = `[${groups.join(',')}]`;
      // Prometheus accepts exactly this media type (with or without the charset).
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      res.end(text);
    }, { action: 'metrics.read' });
    const list = { type: 'array', items: { type: 'string' } };
    ctx.services.contribute(API_DESCRIPTION, {
      paths: {
        '/prometheus/sd': {
          get: {
            tags: ['ops'], summary: 'Prometheus HTTP service discovery: one target group per registered instance', operationId: 'prometheusTargets',
            description: 'Targets are the instance\'s prometheus endpoint (detected, else management URL + /prometheus), listed only when the outbound policy (ssrf-protection) lets Vigil call them. Labels: __scheme__, __metrics_path__, __param_<name> (from a detected endpoint\'s query only), __meta_vigil_application, __meta_vigil_instance_id, __meta_vigil_status, __meta_vigil_service_url, __meta_vigil_build_version, and for the keys named in prometheus-sd.metadata-labels __meta_vigil_tag_<key>, __meta_vigil_metadata_<key> (names made valid for Prometheus, values sanitised, URLs without userinfo).',
            parameters: [
              { name: 'application', in: 'query', required: false, description: 'Only these applications (repeat for several)', schema: list, style: 'form', explode: true },
              { name: 'status', in: 'query', required: false, description: 'Only instances with these statuses (repeat for several)', schema: list, style: 'form', explode: true },
            ],
            responses: {
              200: {
                description: 'The target groups ([] when none)',
                content: {
                  'application/json': {
                    schema: {
                      type: 'array',
                      items: { type: 'object', required: ['targets', 'labels'], properties: { targets: list, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
                    },
                  },
                },
              },
              default: ERROR_RESPONSE,
            },
          },
        },
      },
    });
    // The section is read on every request: a new `metadata-labels` applies to the next one.
    return { reload() {} };
  },
});
