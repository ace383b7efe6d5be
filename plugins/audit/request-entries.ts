import type { ServerResponse } from 'node:http';
import type { Principal, Registry, VigilRequest } from '../../core/plugin-api.js';
import { BodySample, detailOf } from './detail.js';
import { NOBODY, SIGN_IN_FAILED, type AuditActor, type AuditRecord } from './entry.js';
import type { FailedSignIns } from './failed-sign-ins.js';

const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BODY_WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);
const PROXY_ROUTES: ReadonlySet<string> = new Set([
  '/instances/:id/actuator', '/instances/:id/actuator/*', '/applications/:name/actuator', '/applications/:name/actuator/*',
]);
/** A path is kept up to this length in an entry; a longer one is cut (it is bounded by the server's limits anyway). */
const MAX_PATH = 2048;

/** What the audit plugin notes on a request when it arrives, for its entry when it ends. */
interface Arrival {
  readonly at: number;
  /** Taken on arrival: once the response is done the socket may already be gone. */
  readonly address: string | null;
  readonly body?: BodySample;
}
const ARRIVAL = Symbol('vigil.audit.arrival');
type Noted = VigilRequest & { [ARRIVAL]?: Arrival };

export interface RequestEntriesOptions {
  readonly registry: Registry;
  readonly failedSignIns: FailedSignIns;
  /** `audit.include-registrations`. */
  includeRegistrations(): boolean;
  /** `metadata-keys-to-sanitize`, for proxied bodies. */
  sanitize(): readonly RegExp[];
  readonly now?: () => number;
}

/**
 * Turns requests into entries. `arrived` runs first for every request (a `pre` hook): it notes
 * the time and, for a proxied write, taps its body. `ended` runs when the response is done and
 * says whether the request is one the trail keeps, and as what.
 */
export class RequestEntries {
  readonly #now: () => number;

  constructor(private readonly options: RequestEntriesOptions) {
    this.#now = options.now ?? (() => performance.now());
  }

  arrived(req: VigilRequest): void {
    const method = req.method ?? 'GET';
    // Only what may be a proxied write pays for the tap; the route decides later whether it was one.
    const body = BODY_WRITES.has(method) && req.path.includes('/actuator') ? new BodySample(req) : undefined;
    const at = this.#now();
    const address = addressOf(req);
    (req as Noted)[ARRIVAL] = body ? { at, address, body } : { at, address };
  }

  /** The entry for a finished request, or undefined when the trail does not keep it. */
  ended(req: VigilRequest, res: ServerResponse): AuditRecord | undefined {
    const method = req.method ?? 'GET';
    const status = res.headersSent ? res.statusCode : null;
    const principal = req.principal;
    const arrival = (req as Noted)[ARRIVAL];
    const address = arrival?.address ?? addressOf(req);
    if (status === 401) return this.#failedSignIn(req, method, address);
    const proxied = req.route !== undefined && PROXY_ROUTES.has(req.route);
    const action = req.access?.action;
    const refused = status === 403;
    const write = WRITES.has(method) || (proxied && method !== 'GET' && method !== 'HEAD');
    const sensitiveRead = proxied && !write && req.access?.elevated === true;
    if (!refused && !write && !sensitiveRead) return undefined;
    // Sign-in pages: what they do is recorded as sign-ins and sign-outs, by the plugin that does it.
    if (!refused && action === 'public') return undefined;
    if (!refused && this.#isRegistration(req, method, principal)) return undefined;
    const params = req.params ?? {};
    const instance = params.id ?? null;
    const application = params.name ?? (instance === null ? null : this.options.registry.get(instance)?.registration?.name ?? null);
    const body = arrival?.body;
    return {
      timestamp: new Date().toISOString(),
      actor: actorOf(principal),
      address,
      action: action ?? `${method} ${req.route ?? 'no route'}`,
      method,
      path: req.path.length > MAX_PATH ? `${req.path.slice(0, MAX_PATH)}…` : req.path,
      instance,
      application,
      status,
      durationMs: arrival === undefined ? null : Math.round((this.#now() - arrival.at) * 10) / 10,
      detail: proxied && body && BODY_WRITES.has(method) && req.access?.refused !== true ? detailOf(body.text, body.bytes, this.options.sanitize()) : null,
    };
  }

  /** Registrations by a client (the `registration` role, or anyone when nobody signs in) heartbeat every 10 s. */
  #isRegistration(req: VigilRequest, method: string, principal: Principal | undefined): boolean {
    if (method !== 'POST' || req.route !== '/instances' || this.options.includeRegistrations()) return false;
    return principal === undefined || principal.role === 'registration';
  }

  /** A 401 to a request that sent credentials: a failed sign-in, recorded once a minute per address and user. */
  #failedSignIn(req: VigilRequest, method: string, address: string | null): AuditRecord | undefined {
    const authorization = req.headers.authorization;
    if (authorization === undefined) return undefined;
    const user = claimedUser(authorization);
    const failures = this.options.failedSignIns.note(address ?? 'unknown', user);
    if (failures === undefined) return undefined;
    return {
      timestamp: new Date().toISOString(),
      actor: { name: user, kind: user === 'bearer token' ? 'token' : 'user', via: user === 'bearer token' ? 'token' : 'basic' },
      address,
      action: SIGN_IN_FAILED,
      method,
      path: req.path.length > MAX_PATH ? `${req.path.slice(0, MAX_PATH)}…` : req.path,
      instance: null,
      application: null,
      status: 401,
      durationMs: null,
      detail: { failures },
    };
  }
}

export function actorOf(principal: Principal | undefined): AuditActor {
  return principal === undefined ? NOBODY : { name: principal.name, kind: principal.kind, via: principal.via };
}

/** The peer's address, an IPv4-mapped one as plain IPv4. */
export function addressOf(req: VigilRequest): string | null {
  const address = req.socket?.remoteAddress;
  if (address === undefined) return null;
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * Who a refused `Authorization` claimed to be: the user name of Basic credentials (never the
 * password), or `bearer token` (never the token). Cut and cleaned: it is whatever the client sent.
 */
function claimedUser(authorization: string): string {
  const [scheme = '', value = ''] = authorization.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'bearer') return 'bearer token';
  if (scheme.toLowerCase() !== 'basic') return 'unknown';
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // eslint-disable-next-line no-control-regex -- control characters are what is being removed
  const user = (colon < 0 ? '' : decoded.slice(0, colon)).replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 100);
  return user === '' ? 'unknown' : user;
}
