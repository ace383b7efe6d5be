import type { Registration } from './types.js';

/**
 * A registration whose health and service URLs are its management URL with a suffix, and a prefix
 * of it, as nearly every actuator client registers (`…/actuator/health`, `…/actuator`, `…/`):
 * held as the management URL, the health suffix (one string shared by every registration with
 * that suffix) and the service URL's length. Both URLs are built when read; `toJSON` gives the
 * plain form with the fields in wire order. The URLs were most of what a node holds per instance
 * it does not check (bench/REPORT.md, memory per instance).
 */
class PackedRegistration implements Registration {
  readonly name: string;
  readonly managementUrl: string;
  readonly #healthSuffix: string;
  readonly #serviceLength: number;
  readonly source: string | null;
  readonly metadata: Readonly<Record<string, string>>;

  constructor(from: Registration, managementUrl: string, healthSuffix: string, serviceLength: number) {
    this.name = from.name;
    this.managementUrl = managementUrl;
    this.#healthSuffix = healthSuffix;
    this.#serviceLength = serviceLength;
    this.source = from.source;
    this.metadata = from.metadata;
  }

  get healthUrl(): string {
    return this.managementUrl + this.#healthSuffix;
  }

  get serviceUrl(): string {
    return this.managementUrl.slice(0, this.#serviceLength);
  }

  /** Whether `url` is this registration's health URL, compared without building it. */
  isHealthUrl(url: string): boolean {
    const management = this.managementUrl;
    return url.length === management.length + this.#healthSuffix.length && url.startsWith(management) && url.endsWith(this.#healthSuffix);
  }

  /** Whether `url` is this registration's service URL, compared without building it. */
  isServiceUrl(url: string | null): boolean {
    return url !== null && url.length === this.#serviceLength && this.managementUrl.startsWith(url);
  }

  toJSON(): Registration {
    return {
      name: this.name,
      managementUrl: this.managementUrl,
      healthUrl: this.healthUrl,
      serviceUrl: this.serviceUrl,
      source: this.source,
      metadata: this.metadata,
    };
  }
}

/** Health suffixes are a few per fleet (`/health`, `/health/liveness`): one string each, up to this many, each this long at most. */
const MAX_SUFFIXES = 64;
const MAX_SUFFIX_CHARS = 64;
const suffixes = new Map<string, string>();

function sharedSuffix(suffix: string): string | undefined {
  const known = suffixes.get(suffix);
  if (known !== undefined) return known;
  if (suffixes.size >= MAX_SUFFIXES || suffix.length > MAX_SUFFIX_CHARS) return undefined;
  suffixes.set(suffix, suffix);
  return suffix;
}

/**
 * `registration` packed (see PackedRegistration) when its URLs allow it, with `name`, `source` and
 * `metadata` as given; otherwise undefined. Reading it gives the same values.
 */
export function packRegistration(registration: Registration): Registration | undefined {
  if (registration instanceof PackedRegistration) return registration;
  const { managementUrl, healthUrl, serviceUrl } = registration;
  if (managementUrl === null || serviceUrl === null) return undefined;
  if (!managementUrl.startsWith(serviceUrl) || !healthUrl.startsWith(managementUrl)) return undefined;
  const suffix = sharedSuffix(healthUrl.slice(managementUrl.length));
  return suffix === undefined ? undefined : new PackedRegistration(registration, managementUrl, suffix, serviceUrl.length);
}

/** Whether `registration` is held packed (and so shared already). */
export function isPacked(registration: Registration): boolean {
  return registration instanceof PackedRegistration;
}

/**
 * Whether `url` is one of the registration's three URLs, read without building a packed one's
 * health and service URLs (a heartbeat asks this of every URL it repeats).
 */
export function isUrlOf(registration: Registration, url: string): boolean {
  if (registration instanceof PackedRegistration) return url === registration.managementUrl || registration.isHealthUrl(url) || registration.isServiceUrl(url);
  return url === registration.healthUrl || url === registration.managementUrl || url === registration.serviceUrl;
}

/** Whether two registrations have the same three URLs, compared without building a packed one's. */
export function sameUrls(a: Registration, b: Registration): boolean {
  if (a.managementUrl !== b.managementUrl) return false;
  if (a instanceof PackedRegistration) return a.isHealthUrl(b.healthUrl) && a.isServiceUrl(b.serviceUrl);
  if (b instanceof PackedRegistration) return b.isHealthUrl(a.healthUrl) && b.isServiceUrl(a.serviceUrl);
  return a.healthUrl === b.healthUrl && a.serviceUrl === b.serviceUrl;
}
