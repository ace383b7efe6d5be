import type { JsonViews } from '../../plugin-api.js';
import { MASK, maskUrlPassword, visibleEndpoints, type Application, type Endpoint, type Instance, type InstanceEvent, type Registration } from '../../domain/index.js';

/**
 * Builds the views for a list of `metadata-keys-to-sanitize` patterns: a metadata value whose key
 * fully matches one (case-insensitive) is written as `******`. The stored value is untouched.
 */
export function createJsonViews(sanitizePatterns: readonly string[]): JsonViews {
  const patterns = sanitizePatterns.map((pattern) => new RegExp(`^(?:${pattern})$`, 'i'));
  const sensitive = (key: string) => patterns.some((pattern) => pattern.test(key));
  // Registrations are shared by many events and snapshots: sanitise each one once. One with nothing
  // to mask is its own view, so the cache holds no copy of its strings (a node may hold 100,000).
  const cache = new WeakMap<Registration, Registration>();

  const registration = (value: Registration) => {
    let view = cache.get(value);
    if (!view) {
      view = masked(value);
      cache.set(value, view);
    }
    return view;
  };

  const masked = (value: Registration): Registration => {
    const urls = [value.managementUrl, value.healthUrl, value.serviceUrl];
    const keys = Object.keys(value.metadata);
    if (!keys.some(sensitive) && !urls.some((url) => url?.includes('@'))) return value;
    const metadata: Record<string, string> = {};
    for (const [key, entry] of Object.entries(value.metadata)) metadata[key] = sensitive(key) ? MASK : entry;
    return {
      name: value.name,
      managementUrl: maskUrlPassword(value.managementUrl),
      healthUrl: maskUrlPassword(value.healthUrl),
      serviceUrl: maskUrlPassword(value.serviceUrl),
      source: value.source,
      metadata,
    };
  };

  // Tags come from `tags.*` metadata (and info): `tags.password` is as secret under either name.
  const tagCache = new WeakMap<object, Readonly<Record<string, string>>>();
  const tags = (value: Readonly<Record<string, string>>) => {
    let view = tagCache.get(value);
    if (!view) {
      const shown: Record<string, string> = {};
      for (const [key, entry] of Object.entries(value)) shown[key] = sensitive(key) || sensitive(`tags.${key}`) ? MASK : entry;
      view = shown;
      tagCache.set(value, view);
    }
    return view;
  };

  const instance = (value: Instance) => ({
    id: value.id,
    version: value.version,
    registration: value.registration && registration(value.registration),
    registered: value.registered,
    statusInfo: value.statusInfo,
    statusTimestamp: value.statusTimestamp,
    info: value.info,
    endpoints: endpointsView(visibleEndpoints(value)),
    buildVersion: value.buildVersion,
    tags: tags(value.tags),
  });

  const event = (value: InstanceEvent) => {
    const view: Record<string, unknown> = {
      instance: value.instance,
      version: value.version,
      timestamp: value.timestamp,
      type: value.type,
    };
    switch (value.type) {
      case 'REGISTERED':
      case 'REGISTRATION_UPDATED':
        view.registration = registration(value.registration);
        break;
      case 'STATUS_CHANGED':
        view.statusInfo = value.statusInfo;
        break;
      case 'ENDPOINTS_DETECTED':
        view.endpoints = endpointsView(value.endpoints);
        break;
      case 'INFO_CHANGED':
        view.info = value.info;
        break;
      case 'DEREGISTERED':
        break;
    }
    return view;
  };

  const application = (value: Application) => ({
    name: value.name,
    buildVersion: value.buildVersion,
    status: value.status,
    statusTimestamp: value.statusTimestamp,
    instances: value.instances.map(instance),
  });

  return { registration, instance, event, application };
}

/** Endpoint URLs derive from the management URL, so they may carry its userinfo too. */
function endpointsView(endpoints: readonly Endpoint[]): readonly Endpoint[] {
  if (!endpoints.some((endpoint) => endpoint.url.includes('@'))) return endpoints;
  return endpoints.map((endpoint) => ({ ...endpoint, url: maskUrlPassword(endpoint.url) }));
}

/**
 * Views whose sanitising patterns can be replaced while running (`metadata-keys-to-sanitize` on
 * reload): every holder of `views` sees the new patterns from its next call on, and nothing
 * sanitised under the old ones is served from a cache.
 */
export function replaceableJsonViews(sanitizePatterns: readonly string[]): { readonly views: JsonViews; replace(patterns: readonly string[]): void } {
  let current = createJsonViews(sanitizePatterns);
  return {
    views: {
      registration: (value) => current.registration(value),
      instance: (value) => current.instance(value),
      event: (value) => current.event(value),
      application: (value) => current.application(value),
    },
    replace: (patterns) => {
      current = createJsonViews(patterns);
    },
  };
}
