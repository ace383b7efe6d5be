import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { Agent, request, type Dispatcher } from 'undici';
import { ApiError, getJson } from '../../core/kits/discovery/index.js';

export interface KubeConnection {
  readonly 'api-url'?: string;
  readonly token?: string;
  readonly 'token-file': string;
  readonly 'ca-file': string;
}

/** A watch event as the API server streams it, one JSON object a line. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: Record<string, unknown>;
}

/**
 * The API server as a pod sees it (https://kubernetes.io/docs/tasks/run-application/access-api-from-pod/):
 * `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`, the service account's token and
 * the cluster's CA; or an explicit `api-url` and `token` (a proxy, a test). The token file is read
 * on every request: bound service-account tokens rotate (hourly by default) and the kubelet
 * rewrites the file, so a token read once would expire under a long-running Vigil.
 */
export class KubeApi {
  readonly base: string | undefined;
  readonly #dispatcher: Dispatcher | undefined;

  constructor(private readonly config: KubeConnection) {
    const host = process.env.KUBERNETES_SERVICE_HOST;
    const inPod = host ? `https://${host.includes(':') ? `[${host}]` : host}:${process.env.KUBERNETES_SERVICE_PORT ?? '443'}` : undefined;
    this.base = (config['api-url'] ?? inPod)?.replace(/\/+$/, '');
    const ca = this.base?.startsWith('https:') && existsSync(config['ca-file']) ? readFileSync(config['ca-file'], 'utf8') : undefined;
    this.#dispatcher = ca ? new Agent({ connect: { ca } }) : undefined;
  }

  async close(): Promise<void> {
    await this.#dispatcher?.close();
  }

  /** GET a list (or any object). */
  async get(path: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { json } = await getJson(this.#url(path), { headers: await this.#headers(), signal, ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}) });
    return json as Record<string, unknown>;
  }

  /**
   * Streams a watch, calling `onEvent` per event until the server ends it (its `timeoutSeconds`)
   * or `signal` aborts; rejects on a connection error or a non-2xx answer (ApiError, e.g. 410).
   */
  async watch(path: string, signal: AbortSignal, onEvent: (event: WatchEvent) => void): Promise<void> {
    const url = this.#url(path);
    const response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...(await this.#headers()) },
      signal,
      ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
      // Bookmarks come about once a minute; the server ends the watch at its timeoutSeconds.
      headersTimeout: 30_000,
      bodyTimeout: 0,
    });
    if (response.statusCode < 200 || response.statusCode > 299) {
      const text = await response.body.text().catch(() => '');
      throw new ApiError(response.statusCode, `GET ${url}: HTTP ${response.statusCode}: ${statusMessage(text)}`);
    }
    const decoder = new StringDecoder('utf8');
    let partial = '';
    for await (const chunk of response.body) {
      const lines = (partial + decoder.write(chunk as Buffer)).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') onEvent(JSON.parse(line) as WatchEvent);
    }
    if (partial.trim() !== '') onEvent(JSON.parse(partial) as WatchEvent);
  }

  #url(path: string): string {
    if (!this.base) throw new Error('not running in a pod (no KUBERNETES_SERVICE_HOST): set discovery-kubernetes.api-url');
    return `${this.base}${path}`;
  }

  async #headers(): Promise<Record<string, string>> {
    const token = this.config.token ?? await readFile(this.config['token-file'], 'utf8').then((text) => text.trim(), () => undefined);
    return token ? { authorization: `Bearer ${token}` } : {};
  }
}

/** A Kubernetes `Status` body's message, or the start of whatever came. */
function statusMessage(text: string): string {
  try {
    const status = JSON.parse(text) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not a Status
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
