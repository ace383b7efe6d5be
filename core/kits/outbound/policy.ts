import { Agent, type Dispatcher } from 'undici';
import type { Outbound } from '../../plugin-api.js';
import type { Instance } from '../../domain/index.js';
import { instanceAuthorization, type InstanceAuthSettings } from './credentials.js';
import { SsrfGuard, SsrfRefusedError, type SsrfSettings } from './ssrf-guard.js';

export interface OutboundSettings {
  readonly ssrf: SsrfSettings;
  readonly instanceAuth: InstanceAuthSettings;
  /** `Vigil/<version> (node <node-id>)`, asked for when the first call goes out (the node id may come from a plugin). */
  readonly userAgent: () => string;
}

/**
 * The one policy every call from Vigil to an instance goes through, whichever plugin makes it
 * (health, info, detection, the proxy, a third-party plugin's calls through `INSTANCE_HTTP`);
 * plugins reach it as `ctx.outbound`, whose contract (`Outbound`) documents each member:
 * - credentials go only to the origins of the instance's own registration URLs, so an index
 *   that points an endpoint at another host cannot collect the operator's instance passwords;
 * - with `ssrf-protection` on, internal addresses are refused, before the call for IP literals
 *   and inside every connection for names (after DNS resolution);
 * - every call says who makes it, so an instance's logs tell which node of a cluster checked it.
 */
export class OutboundPolicy implements Outbound {
  readonly #guard: SsrfGuard | undefined;
  #userAgent: string | undefined;

  constructor(private readonly settings: OutboundSettings) {
    this.#guard = settings.ssrf.enabled ? new SsrfGuard(settings.ssrf) : undefined;
  }

  get userAgent(): string {
    return (this.#userAgent ??= this.settings.userAgent());
  }

  isOwnOrigin(instance: Instance, url: string | URL): boolean {
    const registration = instance.registration;
    if (!registration) return false;
    const origin = originOf(url);
    if (origin === undefined) return false;
    return [registration.healthUrl, registration.managementUrl, registration.serviceUrl]
      .some((own) => own !== null && originOf(own) === origin);
  }

  authorizationFor(instance: Instance, url: string | URL): string | undefined {
    const authorization = instanceAuthorization(instance.registration, this.settings.instanceAuth);
    return authorization !== undefined && this.isOwnOrigin(instance, url) ? authorization : undefined;
  }

  async refusalOf(url: string | URL): Promise<Error | undefined> {
    if (!this.#guard) return undefined;
    let parsed: URL;
    try {
      parsed = typeof url === 'string' ? new URL(url) : url;
    } catch {
      return new SsrfRefusedError(`${JSON.stringify(String(url))} is not a URL`);
    }
    return this.#guard.check(parsed);
  }

  /** Refused before it is sent when SSRF protection forbids the scheme or address, re-checked at connect time for names. */
  createAgent(options: Agent.Options = {}): Dispatcher {
    const guard = this.#guard;
    const connect = guard ? { ...(typeof options.connect === 'object' ? options.connect : {}), lookup: guard.connectLookup() } : options.connect;
    const agent = new Agent({ ...options, ...(connect ? { connect } : {}) });
    return agent.compose((dispatch) => (opts, handler) => {
      const refusal = guard?.refusalOf(new URL(String(opts.origin)));
      if (refusal) {
        handler.onResponseError?.(null as never, refusal);
        return true;
      }
      return dispatch({ ...opts, headers: withUserAgent(opts.headers, this.userAgent) }, handler);
    });
  }
}

function originOf(url: string | URL): string | undefined {
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The request's headers with Vigil's User-Agent in place of any other. */
function withUserAgent(headers: Dispatcher.DispatchOptions['headers'], userAgent: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) result[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
  } else if (headers && typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
      if (value !== undefined) result[name.toLowerCase()] = value;
    }
  }
  result['user-agent'] = userAgent;
  return result;
}
