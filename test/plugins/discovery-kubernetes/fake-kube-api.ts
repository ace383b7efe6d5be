import { createServer as createHttp, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { listenLocal, type LocalServer } from '../../support/local-server.js';
import { matchesSelector, parseSelector, type Requirement } from './label-selector.js';

export type Kind = 'services' | 'endpointslices';
export type KubeObject = { metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string> } } & Record<string, unknown>;

const KINDS: Record<Kind, { prefix: string; kind: string; apiVersion: string }> = {
  services: { prefix: '/api/v1', kind: 'Service', apiVersion: 'v1' },
  endpointslices: { prefix: '/apis/discovery.k8s.io/v1', kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1' },
};

interface Change {
  readonly kind: Kind;
  readonly namespace: string;
  readonly rv: number;
  readonly before: KubeObject | undefined;
  readonly after: KubeObject | undefined;
}

interface Watch {
  readonly kind: Kind;
  readonly namespace: string;
  readonly selector: readonly Requirement[];
  readonly bookmarks: boolean;
  readonly res: ServerResponse;
  /** When it opened, on the clock `#tick` keeps. */
  readonly openedAt: number;
}

/**
 * The part of a Kubernetes API server discovery reads, on loopback, after the documented API
 * concepts (https://kubernetes.io/docs/reference/using-api/api-concepts/): namespaced lists of
 * Services and EndpointSlices with `labelSelector` (equality and existence) and `limit` /
 * `continue` pages served from one snapshot; watches streamed chunked, one JSON event a line,
 * from a `resourceVersion` (replaying the history after it), with BOOKMARK events when asked
 * and allowed; objects that stop matching the selector come as DELETED; a resourceVersion older
 * than the compacted history gets an ERROR event with a 410 Status inside the stream, as the
 * watch cache answers. The test drives changes, bookmarks, compaction, expiry and outages.
 */
export class FakeKubeApi {
  #rv = 1000;
  #compactedBelow = 0;
  /** Orders watch openings against list answers. */
  #tick = 0;
  /** When the last list of each `kind/namespace` was answered whole, on `#tick`'s clock. */
  readonly #listedAt = new Map<string, number>();
  readonly #store = new Map<string, Map<string, KubeObject>>();
  readonly #history: Change[] = [];
  readonly #watches = new Set<Watch>();
  /** Lists being paged, by `kind/namespace/selector@rv`: every page comes from the first page's state. */
  readonly #snapshots = new Map<string, KubeObject[]>();
  readonly requests: { path: string; query: URLSearchParams; headers: IncomingHttpHeaders }[] = [];
  /** Bearer token required when set. */
  token: string | undefined;
  failing = false;
  /** The next page asked with a continue token gets 410, as when the token outlived the history. */
  expireNextContinue = false;
  /** Namespaces the service account may not read (403). */
  readonly forbidden = new Set<string>();
  #server: LocalServer | undefined;
  port = 0;
  scheme: 'http' | 'https' = 'http';

  static async start(tls?: { key: string; cert: string }): Promise<FakeKubeApi> {
    const fake = new FakeKubeApi();
    const handler = (req: IncomingMessage, res: ServerResponse) => fake.#handle(req, res);
    const server: Server = tls ? createHttps(tls, handler) : createHttp(handler);
    fake.scheme = tls ? 'https' : 'http';
    fake.#server = await listenLocal(server);
    fake.port = fake.#server.port;
    return fake;
  }

  get url(): string {
    return `${this.scheme}://127.0.0.1:${this.port}`;
  }

  get resourceVersion(): string {
    return String(this.#rv);
  }

  objects(kind: Kind, namespace: string): KubeObject[] {
    return [...(this.#store.get(`${kind}/${namespace}`)?.values() ?? [])];
  }

  /** Creates or replaces an object; open watches see it unless `quiet` (a watch that lags). */
  apply(kind: Kind, namespace: string, object: KubeObject, options: { quiet?: boolean } = {}): void {
    const bucket = this.#bucket(kind, namespace);
    const before = bucket.get(object.metadata.name);
    const stored = structuredClone({ ...object, metadata: { ...object.metadata, namespace, resourceVersion: String(++this.#rv) } });
    bucket.set(object.metadata.name, stored);
    this.#record({ kind, namespace, rv: this.#rv, before, after: stored }, options.quiet);
  }

  delete(kind: Kind, namespace: string, name: string): void {
    const bucket = this.#bucket(kind, namespace);
    const before = bucket.get(name);
    if (!before) return;
    bucket.delete(name);
    this.#record({ kind, namespace, rv: ++this.#rv, before, after: undefined }, false);
  }

  /** A BOOKMARK with the current resourceVersion to every watch that allowed bookmarks. */
  bookmark(): void {
    for (const watch of this.#watches) {
      if (watch.bookmarks) this.#send(watch.res, { type: 'BOOKMARK', object: { kind: KINDS[watch.kind].kind, apiVersion: KINDS[watch.kind].apiVersion, metadata: { resourceVersion: String(this.#rv) } } });
    }
  }

  /** Forgets the history up to `upTo` (default: now), as etcd compaction does: older resourceVersions are gone. */
  compact(upTo: string = this.resourceVersion): void {
    this.#compactedBelow = Number(upTo);
    this.#history.splice(0, this.#history.length, ...this.#history.filter((change) => change.rv > this.#compactedBelow));
  }

  /** Ends every watch as the server's timeout does, cleanly: clients resume from their last resourceVersion. */
  endWatches(): void {
    for (const watch of [...this.#watches]) {
      this.#watches.delete(watch);
      watch.res.end();
    }
  }

  /** Sends every open watch an ERROR event with a 410 Status inside its stream, then ends it. */
  expire(): void {
    for (const watch of [...this.#watches]) {
      this.#send(watch.res, { type: 'ERROR', object: gone(`too old resource version: ${this.#compactedBelow} (${this.#rv})`) });
      this.#watches.delete(watch);
      watch.res.end();
    }
  }

  /** Open watch streams now, as `kind/namespace`. */
  watching(): string[] {
    return [...this.#watches].map((watch) => `${watch.kind}/${watch.namespace}`).sort();
  }

  /**
   * Open watch streams that follow the last list of their kind and namespace, as `kind/namespace`.
   * A client watches from what it last listed: a watch opened before a later list is one the client
   * is cutting, even while this server still counts it open.
   */
  watchingSinceList(): string[] {
    const current = [...this.#watches].filter((watch) => watch.openedAt > (this.#listedAt.get(`${watch.kind}/${watch.namespace}`) ?? 0));
    return current.map((watch) => `${watch.kind}/${watch.namespace}`).sort();
  }

  /** Every request breaks: 500 Status, and open watches are cut. */
  fail(failing: boolean): void {
    this.failing = failing;
    if (failing) for (const watch of [...this.#watches]) {
      this.#watches.delete(watch);
      watch.res.destroy();
    }
  }

  close(): Promise<void> {
    this.endWatches();
    return this.#server?.close() ?? Promise.resolve();
  }

  #bucket(kind: Kind, namespace: string): Map<string, KubeObject> {
    const key = `${kind}/${namespace}`;
    let bucket = this.#store.get(key);
    if (!bucket) this.#store.set(key, (bucket = new Map()));
    return bucket;
  }

  #record(change: Change, quiet: boolean | undefined): void {
    this.#history.push(change);
    if (quiet) return;
    for (const watch of this.#watches) this.#deliver(watch, change);
  }

  /** The event a watch with a selector sees for a change: by whether the object matched before and after. */
  #deliver(watch: Watch, change: Change): void {
    if (watch.kind !== change.kind || watch.namespace !== change.namespace) return;
    const matched = change.before !== undefined && matchesSelector(watch.selector, change.before.metadata.labels);
    const matches = change.after !== undefined && matchesSelector(watch.selector, change.after.metadata.labels);
    // A deleted object (or one that left the selector) comes as it was, at the change's resourceVersion.
    const object = this.#typed(change.kind, change.after ?? change.before!);
    if (matches) this.#send(watch.res, { type: matched ? 'MODIFIED' : 'ADDED', object });
    else if (matched) this.#send(watch.res, { type: 'DELETED', object: { ...object, metadata: { ...object.metadata, resourceVersion: String(change.rv) } } });
  }

  #typed(kind: Kind, object: KubeObject): KubeObject {
    return { kind: KINDS[kind].kind, apiVersion: KINDS[kind].apiVersion, ...object };
  }

  #send(res: ServerResponse, event: unknown): void {
    res.write(`${JSON.stringify(event)}\n`);
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://kube');
    this.requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    const status = (code: number, reason: string, message: string) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
    };
    if (this.token !== undefined && req.headers.authorization !== `Bearer ${this.token}`) return status(401, 'Unauthorized', 'Unauthorized');
    if (this.failing) return status(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out');
    const match = /^(\/api\/v1|\/apis\/discovery\.k8s\.io\/v1)\/namespaces\/([^/]+)\/(services|endpointslices)$/.exec(url.pathname);
    const kind = match?.[3] as Kind | undefined;
    if (!match || !kind || KINDS[kind].prefix !== match[1]) return status(404, 'NotFound', 'the server could not find the requested resource');
    const namespace = decodeURIComponent(match[2]!);
    if (this.forbidden.has(namespace)) {
      return status(403, 'Forbidden', `${kind} is forbidden: User "system:serviceaccount:vigil:vigil" cannot list resource "${kind}" in API group "${kind === 'services' ? '' : 'discovery.k8s.io'}" in the namespace "${namespace}"`);
    }
    let selector: Requirement[];
    try {
      selector = parseSelector(url.searchParams.get('labelSelector') ?? '');
    } catch (error) {
      return status(400, 'BadRequest', (error as Error).message);
    }
    const watch = url.searchParams.get('watch');
    if (watch === '1' || watch === 'true') return this.#watch(kind, namespace, selector, url.searchParams, req, res);
    return this.#list(kind, namespace, selector, url.searchParams, res, status);
  }

  #list(kind: Kind, namespace: string, selector: Requirement[], query: URLSearchParams, res: ServerResponse, status: (code: number, reason: string, message: string) => void): void {
    let rv = this.#rv;
    let offset = 0;
    const listKey = `${kind}/${namespace}/${query.get('labelSelector') ?? ''}`;
    const token = query.get('continue');
    if (token && this.expireNextContinue) {
      this.expireNextContinue = false;
      return status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
    if (token) {
      const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { rv: number; offset: number };
      if (!this.#snapshots.has(`${listKey}@${decoded.rv}`) || decoded.rv < this.#compactedBelow) {
        return status(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
      }
      ({ rv, offset } = decoded);
    }
    const snapshot = `${listKey}@${rv}`;
    let items = this.#snapshots.get(snapshot);
    if (!items) {
      items = this.objects(kind, namespace).filter((object) => matchesSelector(selector, object.metadata.labels)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
      this.#snapshots.set(snapshot, items);
    }
    const limit = Number(query.get('limit') ?? 0);
    const page = limit > 0 ? items.slice(offset, offset + limit) : items.slice(offset);
    const more = limit > 0 && offset + limit < items.length;
    if (!more) {
      this.#snapshots.delete(snapshot);
      this.#listedAt.set(`${kind}/${namespace}`, ++this.#tick);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      kind: `${KINDS[kind].kind}List`,
      apiVersion: KINDS[kind].apiVersion,
      metadata: { resourceVersion: String(rv), ...(more ? { continue: Buffer.from(JSON.stringify({ rv, offset: offset + limit })).toString('base64url'), remainingItemCount: items.length - offset - limit } : {}) },
      items: page,
    }));
  }

  #watch(kind: Kind, namespace: string, selector: Requirement[], query: URLSearchParams, req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const from = Number(query.get('resourceVersion') || this.#rv);
    if (from < this.#compactedBelow) {
      this.#send(res, { type: 'ERROR', object: gone(`too old resource version: ${from} (${this.#rv})`) });
      res.end();
      return;
    }
    const watch: Watch = { kind, namespace, selector, bookmarks: query.get('allowWatchBookmarks') === 'true', res, openedAt: ++this.#tick };
    for (const change of this.#history) if (change.rv > from) this.#deliver(watch, change);
    this.#watches.add(watch);
    const timeout = setTimeout(() => {
      this.#watches.delete(watch);
      res.end();
    }, Number(query.get('timeoutSeconds') ?? 1800) * 1000);
    req.on('close', () => {
      clearTimeout(timeout);
      this.#watches.delete(watch);
    });
  }
}

function gone(message: string): unknown {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Expired', code: 410 };
}
