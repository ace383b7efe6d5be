import type { CorsConfig } from './config.js';
import { normaliseOrigin } from './origin.js';

/** What the hook should do with one request. */
export type CorsDecision =
  /** No `Origin`: not a CORS request, leave it alone. */
  | { readonly kind: 'none' }
  /** A request to let through with these headers (no Allow-Origin when the origin is not allowed). */
  | { readonly kind: 'actual'; readonly headers: Readonly<Record<string, string>> }
  /** An allowed preflight: answer 204 with these headers. */
  | { readonly kind: 'preflight'; readonly headers: Readonly<Record<string, string>> }
  /** A refused preflight: answer 403 with `reason`; only Vary is set, never Allow-Origin. */
  | { readonly kind: 'refused'; readonly reason: string; readonly headers: Readonly<Record<string, string>> };

export interface CorsRequest {
  readonly method: string;
  readonly origin: string | undefined;
  /** `Access-Control-Request-Method`; its presence on an OPTIONS makes a preflight. */
  readonly requestMethod: string | undefined;
  readonly requestHeaders: string | undefined;
}

/**
 * The CORS rules of the `cors` section, as a pure function of the request headers (the Fetch
 * standard's CORS protocol, shaped like Spring's DefaultCorsProcessor). Kept apart from the
 * hook so each rule is testable without a server.
 */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string>;
  readonly #anyOrigin: boolean;
  readonly #methods: readonly string[];
  readonly #anyMethod: boolean;
  readonly #headers: ReadonlySet<string>;
  readonly #anyHeader: boolean;

  constructor(private readonly config: CorsConfig) {
    this.#origins = new Set(config['allowed-origins']);
    this.#anyOrigin = this.#origins.has('*');
    this.#methods = config['allowed-methods'];
    this.#anyMethod = this.#methods.includes('*');
    this.#headers = new Set(config['allowed-headers'].map((name) => name.toLowerCase()));
    this.#anyHeader = this.#headers.has('*');
  }

  decide(request: CorsRequest): CorsDecision {
    if (request.origin === undefined) return { kind: 'none' };
    const preflight = request.method === 'OPTIONS' && request.requestMethod !== undefined;
    // The answer depends on these request headers, so shared caches must key on them.
    const vary = { vary: preflight ? 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' : 'Origin' };
    const allowOrigin = this.#allowOrigin(request.origin);
    if (!preflight) {
      if (allowOrigin === undefined) return { kind: 'actual', headers: vary };
      return { kind: 'actual', headers: { ...vary, ...this.#common(allowOrigin), ...this.#exposed() } };
    }
    if (allowOrigin === undefined) return { kind: 'refused', reason: 'CORS preflight refused: origin not allowed', headers: vary };
    const method = request.requestMethod!.trim().toUpperCase();
    if (!this.#anyMethod && !this.#methods.includes(method)) {
      return { kind: 'refused', reason: `CORS preflight refused: method ${method} not allowed`, headers: vary };
    }
    const asked = (request.requestHeaders ?? '').split(',').map((name) => name.trim()).filter(Boolean);
    const denied = this.#anyHeader ? [] : asked.filter((name) => !this.#headers.has(name.toLowerCase()));
    if (denied.length > 0) {
      return { kind: 'refused', reason: `CORS preflight refused: header(s) ${denied.join(', ')} not allowed`, headers: vary };
    }
    const headers: Record<string, string> = {
      ...vary,
      ...this.#common(allowOrigin),
      // With `*` the method asked for is echoed: a literal `*` is ignored by browsers with credentials.
      'access-control-allow-methods': this.#anyMethod ? method : this.#methods.join(', '),
      'access-control-max-age': String(this.config['max-age']),
    };
    // Echo what was asked when `*` is configured, for the same reason; nothing asked, nothing sent.
    const allowHeaders = this.#anyHeader ? asked : this.config['allowed-headers'];
    if (allowHeaders.length > 0) headers['access-control-allow-headers'] = allowHeaders.join(', ');
    return { kind: 'preflight', headers };
  }

  /**
   * Whether pages of this origin may send unsafe requests (the kernel's cross-site check): only
   * origins listed by name. `*` lets any page read the API without credentials, but a plain form
   * post from any page would still carry the browser's cached credentials, so it trusts nobody.
   */
  trusts(origin: string): boolean {
    const normalised = normaliseOrigin(origin);
    return normalised !== undefined && this.#origins.has(normalised);
  }

  /** The Allow-Origin value for an allowed origin, else undefined. */
  #allowOrigin(origin: string): string | undefined {
    const normalised = normaliseOrigin(origin);
    if (normalised === undefined) return undefined;
    // The matched, serialised form is echoed, never the raw header (it could hold anything).
    if (this.#origins.has(normalised)) return normalised;
    // Config validation guarantees `*` never comes with credentials, so the literal `*` is right.
    return this.#anyOrigin ? '*' : undefined;
  }

  #common(allowOrigin: string): Record<string, string> {
    const headers: Record<string, string> = { 'access-control-allow-origin': allowOrigin };
    if (this.config['allow-credentials']) headers['access-control-allow-credentials'] = 'true';
    return headers;
  }

  #exposed(): Record<string, string> {
    const exposed = this.config['exposed-headers'];
    return exposed.length > 0 ? { 'access-control-expose-headers': exposed.join(', ') } : {};
  }
}
