import { API_DESCRIPTION, ERROR_RESPONSE, HttpError, definePlugin, type Instance, type JsonViews, type VigilRequest } from '../../core/plugin-api.js';
import { targetGroup } from './target-group.js';

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

/**
 * Each instance's target group as JSON text, kept per snapshot: snapshots are immutable, so an
 * instance that did not change since the last refresh costs a lookup. The sanitised registration
 * view it was made from is kept too: when `metadata-keys-to-sanitize` changes (reload) the views
 * are new, and so is every group.
 */
function groupTexts(): (instance: Instance, views: JsonViews) => string | undefined {
  const cache = new WeakMap<Instance, { readonly view: object; readonly text: string | undefined }>();
  return (instance, views) => {
    const view = views.registration(instance.registration!);
    const cached = cache.get(instance);
    if (cached?.view === view) return cached.text;
    const group = targetGroup(instance, views);
    const text = group && JSON.stringify(group);
    cache.set(instance, { view, text });
    return text;
  };
}

/**
 * `prometheus-sd`: `GET /prometheus/sd`, Prometheus's HTTP service discovery over the registry,
 * so Prometheus scrapes every registered instance without a bridge. The whole list every time
 * (`[]` when empty), as Prometheus requires; `?application=` and `?status=` select.
 */
export default definePlugin({
  name: 'prometheus-sd',
  version: '1.0.0',
  configKey: null,
  setup(ctx) {
    const groupText = groupTexts();
    ctx.http.route('GET', '/prometheus/sd', (req, res) => {
      const { applications, statuses } = selection(req);
      const groups: string[] = [];
      for (const instance of ctx.instances.list()) {
        if (applications && !applications.has(instance.registration!.name)) continue;
        if (statuses && !statuses.has(instance.statusInfo.status)) continue;
        const text = groupText(instance, ctx.views);
        if (text !== undefined) groups.push(text);
      }
      const text = `[${groups.join(',')}]`;
      // Prometheus accepts exactly this media type (with or without the charset).
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      res.end(text);
    });
    const list = { type: 'array', items: { type: 'string' } };
    ctx.services.contribute(API_DESCRIPTION, {
      paths: {
        '/prometheus/sd': {
          get: {
            tags: ['ops'], summary: 'Prometheus HTTP service discovery: one target group per registered instance', operationId: 'prometheusTargets',
            description: 'Targets are the instance\'s prometheus endpoint (detected, else management URL + /prometheus). Labels: __scheme__, __metrics_path__, __meta_vigil_application, __meta_vigil_instance_id, __meta_vigil_status, __meta_vigil_service_url, __meta_vigil_build_version, __meta_vigil_tag_<key>, __meta_vigil_metadata_<key> (tags.* keys appear as tags only; names made valid for Prometheus, values sanitised, URLs without userinfo).',
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
  },
});
