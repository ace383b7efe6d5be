import type { IncomingHttpHeaders } from 'node:http';
import { ACTUATOR_ACCEPT } from '../../core/kits/runtime/index.js';

export type HeaderMap = Record<string, string | string[]>;

/** SBA's fixed hop-by-hop list (HttpHeaderFilter): never forwarded, either way. */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization',
  'te', 'trailer', 'transfer-encoding', 'upgrade', 'x-application-context',
]);

const PLAIN_CONNECTION = /^\s*(?:keep-alive|close)\s*$/i;

/** logfile is plain text, plus the wildcard because some instances answer it with other types (SBA's workaround). */
export const LOGFILE_ACCEPT = 'text/plain, */*';

/**
 * Drops hop-by-hop headers, the headers a `Connection` header names, and the configured ignored
 * ones (matched case-insensitively). Runs twice per proxied request, so it builds nothing but
 * the result unless a `Connection` header names extra headers.
 */
export function filterHeaders(headers: IncomingHttpHeaders, ignored: ReadonlySet<string>): HeaderMap {
  const named = connectionTokens(headers.connection);
  const kept: HeaderMap = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || ignored.has(lower) || named?.has(lower)) continue;
    kept[lower] = value;
  }
  return kept;
}

/** The header names a `Connection` header lists (`Connection: close, X-Foo`), lower-cased. */
function connectionTokens(connection: string | string[] | undefined): ReadonlySet<string> | undefined {
  if (connection === undefined) return undefined;
  // The usual `keep-alive` or `close` names nothing beyond the hop-by-hop list.
  if (typeof connection === 'string' && PLAIN_CONNECTION.test(connection)) return undefined;
  const tokens = (Array.isArray(connection) ? connection.join(',') : connection).split(',');
  return new Set(tokens.map((token) => token.trim().toLowerCase()).filter(Boolean));
}

export interface UpstreamHeaderOptions {
  readonly ignored: ReadonlySet<string>;
  readonly endpointId: string;
  /** The instance's `Authorization`, from its metadata or `instance-auth`. */
  readonly authorization: string | undefined;
  /** Whether a body goes upstream; otherwise its framing headers must not. */
  readonly withBody: boolean;
  /** Ask for an unencoded body (the fan-out returns bodies as text). */
  readonly identity?: boolean;
}

/** The headers sent to the instance for one proxied request. */
export function upstreamHeaders(incoming: IncomingHttpHeaders, options: UpstreamHeaderOptions): HeaderMap {
  const headers = filterHeaders(incoming, options.ignored);
  // Node answered any `Expect: 100-continue` already, and undici refuses the header.
  delete headers.expect;
  if (!options.withBody) delete headers['content-length'];
  if (options.identity) delete headers['accept-encoding'];
  if (incoming.accept === undefined) headers.accept = options.endpointId === 'logfile' ? LOGFILE_ACCEPT : ACTUATOR_ACCEPT;
  if (options.authorization) headers.authorization = options.authorization;
  return headers;
}

/** Lower-cased set of the configured ignored header names. */
export function ignoredSet(names: readonly string[]): ReadonlySet<string> {
  return new Set(names.map((name) => name.trim().toLowerCase()));
}
