import type { FanOutResult } from 'vigil/domain';

// The message of anything thrown, as the server words it.
export { messageOf } from 'vigil/domain';

/**
 * The page is served at the context root (`/` or `/admin/`), so the API base is the page's own
 * folder: the app works under any context path without being told it.
 */
export const base = location.pathname.replace(/\/+$/, '');

export const apiUrl = (path: string): string => `${base}${path}`;

/** A failed API call; `status` 0 means the server could not be reached. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

// Actuators answer both; naming JSON also keeps Vigil's own routes from ever answering HTML.
const ACCEPT_JSON = 'application/json, application/vnd.spring-boot.actuator.v3+json;q=0.9';

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await call(path, { headers: { accept: ACCEPT_JSON }, ...(signal ? { signal } : {}) });
  return (await res.json()) as T;
}

/** POST with an optional JSON body; resolves on 2xx, rejects with the server's message otherwise. */
export async function post(path: string, body?: unknown): Promise<Response> {
  const init: RequestInit = { method: 'POST', headers: { accept: ACCEPT_JSON } };
  if (body !== undefined) {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  return call(path, init);
}

/** Any method, optionally with a JSON body; resolves on 2xx, rejects with the server's message otherwise. */
export async function send(method: string, path: string, options: { json?: unknown; accept?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: options.accept ?? ACCEPT_JSON, ...options.headers };
  const init: RequestInit = { method, headers };
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(options.json);
  }
  if (options.signal) init.signal = options.signal;
  return call(path, init);
}

/** The parsed JSON of a 2xx answer, or undefined when it has no body (204, or empty). */
export async function jsonOf<T>(res: Response): Promise<T | undefined> {
  const text = await res.text();
  return text.trim() === '' ? undefined : (JSON.parse(text) as T);
}

/**
 * Saves `blob` as a file: the browser's download, started from an object URL (the proxy marks
 * most answers as attachments anyway, but a fetched body has to be handed over this way).
 */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The application-wide proxy (`/applications/{name}/actuator/...`): one result per instance. */
export function applicationActuatorPath(name: string, endpoint: string): string {
  return `/applications/${encodeURIComponent(name)}/actuator/${endpoint}`;
}

/** The body of a fan-out result as JSON when it is JSON (SBA's UI parses actuator and JSON types), else undefined. */
export function fanOutJson<T>(result: FanOutResult): T | undefined {
  if (!result.body || !/json/i.test(result.contentType ?? '')) return undefined;
  try {
    return JSON.parse(result.body) as T;
  } catch {
    return undefined;
  }
}

/** The proxied path of an instance's actuator endpoint. */
export function actuatorPath(id: string, endpoint: string): string {
  return `/instances/${encodeURIComponent(id)}/actuator/${endpoint}`;
}

/**
 * Where the browser signs in when the daemon signs people in through a page of its own (`oidc`'s
 * `/login`); undefined when the browser's own dialog does it (HTTP Basic) or nothing does.
 */
let signInPath: string | undefined;

/** Tells the API calls where to send the browser once its session is gone. */
export function signInThrough(path: string | undefined): void {
  signInPath = path;
}

/** To the sign-in page, coming back to this view afterwards. */
function signInAgain(): void {
  location.assign(`${apiUrl(signInPath!)}?return=${encodeURIComponent(`/${location.hash}`)}`);
}

/** After a stream was refused: asks once whether the session is gone, which sends the browser to sign in if it is. */
export async function checkSignedIn(): Promise<void> {
  if (signInPath === undefined) return;
  await call('/ui/session', { headers: { accept: ACCEPT_JSON } }).catch(() => undefined);
}

async function call(path: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path), init);
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'Vigil cannot be reached');
  }
  if (res.status === 401 && signInPath !== undefined) signInAgain();
  if (!res.ok) throw await errorOf(res);
  return res;
}

async function errorOf(res: Response): Promise<ApiError> {
  if (res.status === 401) return new ApiError(401, '401: sign in required (reload the page to sign in)');
  let message = res.statusText;
  try {
    const body = (await res.json()) as { message?: unknown; error?: unknown };
    if (typeof body.message === 'string' && body.message) message = body.message;
    else if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON (an instance's own error page): the status line is all there is to say.
  }
  return new ApiError(res.status, `${res.status}: ${message}`);
}

