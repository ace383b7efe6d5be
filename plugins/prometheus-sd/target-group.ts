import { maskUrlPassword, type Instance } from '../../core/domain/index.js';
import type { JsonViews } from '../../core/plugin-api.js';

/** One entry of Prometheus's HTTP SD answer. */
export interface TargetGroup {
  readonly targets: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
}

const INVALID_LABEL_CHARS = /[^a-zA-Z0-9_]/g;
const TAG_KEY = /^tags\./i;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * A label name valid for Prometheus 2.x (`[a-zA-Z_][a-zA-Z0-9_]*`): every other character
 * becomes `_`, as Prometheus's own Eureka discovery does. One invalid name would fail the whole
 * refresh there, so no key is passed on unsanitised.
 */
export function labelName(prefix: string, key: string): string {
  return `${prefix}${key.replace(INVALID_LABEL_CHARS, '_')}`;
}

/** Where Prometheus scrapes an instance, and whether that is a detected endpoint. */
export interface ScrapeTarget {
  readonly url: URL;
  /** Only a detected endpoint's query is passed on (as `__param_<name>`). */
  readonly detected: boolean;
}

/**
 * Where Prometheus scrapes an instance: its detected `prometheus` endpoint; else the management
 * URL + `/prometheus`; else `prometheus` next to the health URL (`.../actuator/health` gives
 * `.../actuator/prometheus`). Undefined when that is no http(s) URL. The registered URLs' query
 * and fragment are left behind: a registrant could otherwise make Prometheus call any path of
 * its host with any parameters (`?confirm=yes&token=...`), with Prometheus's credentials.
 */
export function scrapeTarget(instance: Instance): ScrapeTarget | undefined {
  const registration = instance.registration!;
  const detected = instance.endpoints.find((endpoint) => endpoint.id === 'prometheus')?.url;
  const management = registration.managementUrl?.trim();
  let url: URL;
  try {
    if (detected) {
      url = new URL(detected);
    } else if (management) {
      url = new URL(management);
      url.pathname = `${url.pathname.replace(/\/+$/, '')}/prometheus`;
    } else {
      url = new URL('prometheus', registration.healthUrl);
    }
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!detected) {
    url.search = '';
    url.hash = '';
  }
  return { url, detected: detected !== undefined };
}

/** `scheme://host` of a target: what the outbound policy judges (the port does not matter to it). */
export function policyKey(url: URL): string {
  return `${url.protocol}//${url.hostname}`;
}

/**
 * One target group per instance: the address, scheme and path Prometheus scrapes, and the
 * instance as `__meta_vigil_*` labels for relabelling. Metadata and tags become labels only when
 * `metadataLabels` names their key (`tags.<key>` for a tag): what `/instances` shows is not for
 * whoever reads the targets. Every value goes through the JSON views (`metadata-keys-to-sanitize`
 * applies); URLs lose their userinfo, in metadata and tags too. The scrape URL's credentials are
 * never passed on: Prometheus scrapes with its own.
 */
export function targetGroup(instance: Instance, views: JsonViews, metadataLabels: ReadonlySet<string> = new Set(), target = scrapeTarget(instance)): TargetGroup | undefined {
  if (!target) return undefined;
  const { url } = target;
  const registration = views.registration(instance.registration!);
  const labels: Record<string, string> = {
    __scheme__: url.protocol.slice(0, -1),
    __metrics_path__: url.pathname,
    __meta_vigil_application: String(registration.name),
    __meta_vigil_instance_id: instance.id,
    __meta_vigil_status: instance.statusInfo.status,
  };
  if (registration.serviceUrl) labels.__meta_vigil_service_url = withoutUserinfo(instance.registration!.serviceUrl!);
  if (instance.buildVersion) labels.__meta_vigil_build_version = instance.buildVersion;
  // Query parameters of a detected endpoint travel as Prometheus's `__param_<name>`.
  if (target.detected) for (const [name, value] of url.searchParams) if (/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) labels[`__param_${name}`] ??= value;
  if (metadataLabels.size > 0) {
    addAll(labels, '__meta_vigil_tag_', views.instance(instance).tags as Record<string, string>, (key) => metadataLabels.has(`tags.${key}`));
    // `tags.*` metadata is there as tags only: a fleet's answer stays smaller than /instances.
    addAll(labels, '__meta_vigil_metadata_', registration.metadata as Record<string, string>, (key) => !TAG_KEY.test(key) && metadataLabels.has(key));
  }
  // `hostname` keeps an IPv6 address in brackets, as a target needs it.
  return { targets: [`${url.hostname}:${url.port || DEFAULT_PORTS[url.protocol]}`], labels };
}

/** Adds sanitised names in key order; when two keys sanitise to one name, the first keeps it. */
function addAll(labels: Record<string, string>, prefix: string, values: Readonly<Record<string, string>>, keep: (key: string) => boolean): void {
  for (const key of Object.keys(values).filter(keep).sort()) {
    const name = labelName(prefix, key);
    if (labels[name] === undefined) labels[name] = withoutUserinfo(values[key]!);
  }
}

/**
 * A label value with any URL userinfo removed, user name included: a label is read by whoever
 * reads Prometheus. What does not parse as a URL still gets its password masked.
 */
export function withoutUserinfo(value: string): string {
  if (!value.includes('@')) return value;
  try {
    const url = new URL(value);
    if (url.username === '' && url.password === '') return maskUrlPassword(value);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return maskUrlPassword(value);
  }
}
