import { ApiError } from '../../core/kits/discovery/index.js';
import { messageOf, type Logger } from '../../core/plugin-api.js';
import type { KubeApi, WatchEvent } from './kube-api.js';

export type KubeObject = Record<string, unknown> & { readonly metadata?: { readonly name?: string; readonly resourceVersion?: string; readonly labels?: Record<string, string> } };

/** Items per list page: big namespaces are read in chunks, as kubectl does. */
const PAGE = 500;
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

class Gone extends Error {}

/**
 * One resource (Services or EndpointSlices of one namespace), listed and then watched, as
 * client-go's reflector does (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes):
 * - list, in pages of 500 (`limit`/`continue`), and remember the list's `resourceVersion`;
 * - watch from it with bookmarks (which only move the resourceVersion on), applying ADDED,
 *   MODIFIED and DELETED to the items; resource versions are opaque and only ever copied;
 * - a watch the server ends (its timeout) is resumed from the last resourceVersion;
 * - 410 Gone, as the watch's answer or as an ERROR event inside its stream, means that version is
 *   no longer in the server's history: list again.
 */
export class ResourceWatcher {
  readonly items = new Map<string, KubeObject>();
  #resourceVersion: string | undefined;
  #synced = false;
  /** Aborts the watch stream in progress, so that it resumes from a newer list. */
  #stream: AbortController | undefined;
  #listing: Promise<void> | undefined;

  constructor(private readonly api: KubeApi, readonly path: string, private readonly selector: string, private readonly log: Logger) {}

  /** Whether the items are a complete, current picture (listed, and the watch since has not broken). */
  get synced(): boolean {
    return this.#synced;
  }

  /**
   * Lists every item afresh; a watch in progress restarts from the new list's resourceVersion.
   * A call while a list is under way shares it: at start the source's first run and the watch
   * loop both ask, and two lists would cut the watch the first one opened.
   */
  list(signal: AbortSignal): Promise<void> {
    if (this.#listing) return this.#listing;
    const listing = this.#listWithRetries(signal).finally(() => {
      if (this.#listing === listing) this.#listing = undefined;
    });
    this.#listing = listing;
    return listing;
  }

  async #listWithRetries(signal: AbortSignal): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#listOnce(signal);
      } catch (error) {
        // A continue token outlived the server's history (410): the list starts over, as kubectl does.
        if (!(error instanceof ApiError && error.status === 410) || attempt >= 3) throw error;
      }
    }
  }

  async #listOnce(signal: AbortSignal): Promise<void> {
    const items = new Map<string, KubeObject>();
    let resourceVersion: string | undefined;
    let token: string | undefined;
    do {
      const page = await this.api.get(`${this.path}?${this.#query({ limit: String(PAGE), ...(token ? { continue: token } : {}) })}`, signal);
      for (const item of (page.items ?? []) as KubeObject[]) if (item.metadata?.name) items.set(item.metadata.name, item);
      const metadata = (page.metadata ?? {}) as { resourceVersion?: string; continue?: string };
      resourceVersion = metadata.resourceVersion;
      token = metadata.continue || undefined;
    } while (token);
    this.items.clear();
    for (const [name, item] of items) this.items.set(name, item);
    this.#resourceVersion = resourceVersion;
    this.#synced = true;
    this.#stream?.abort();
  }

  /** Lists and watches until `signal` aborts, calling `changed()` after every change to the items. */
  async run(changed: () => void, signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (!this.#synced) {
          await this.list(signal);
          changed();
        }
        const stream = (this.#stream = new AbortController());
        await this.#watch(AbortSignal.any([signal, stream.signal]), changed);
        failures = 0;
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof Gone || (error instanceof ApiError && error.status === 410)) {
          this.log.debug(`${this.path}: resourceVersion ${this.#resourceVersion} is gone, listing again`);
          this.#synced = false;
          continue;
        }
        // The stream was cut for a newer list: watch again from it.
        if ((error as Error).name === 'AbortError' && this.#stream?.signal.aborted) continue;
        failures += 1;
        this.#synced = false;
        const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1));
        const message = `${this.path}: watching failed (trying again in ${delay} ms): ${messageOf(error)}`;
        if (failures === 1) this.log.warn(message);
        else this.log.debug(message);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, delay);
          signal.addEventListener('abort', () => { clearTimeout(timer); resolve(undefined); }, { once: true });
        });
      }
    }
  }

  async #watch(signal: AbortSignal, changed: () => void): Promise<void> {
    // A random timeout spreads the re-watches of many clients, as client-go does (5 to 10 minutes).
    const timeoutSeconds = String(300 + Math.floor(Math.random() * 300));
    const query = this.#query({ watch: '1', resourceVersion: this.#resourceVersion ?? '', allowWatchBookmarks: 'true', timeoutSeconds });
    await this.api.watch(`${this.path}?${query}`, signal, (event) => this.#apply(event, changed));
  }

  #apply(event: WatchEvent, changed: () => void): void {
    const object = event.object as KubeObject;
    if (event.type === 'ERROR') {
      const code = (object as { code?: number }).code;
      if (code === 410) throw new Gone(String((object as { message?: unknown }).message ?? 'Gone'));
      throw new Error(`the watch reported an error: ${String((object as { message?: unknown }).message ?? JSON.stringify(object))}`);
    }
    const version = object.metadata?.resourceVersion;
    if (version) this.#resourceVersion = version;
    if (event.type === 'BOOKMARK') return;
    const name = object.metadata?.name;
    if (!name) return;
    if (event.type === 'DELETED') this.items.delete(name);
    else this.items.set(name, object);
    changed();
  }

  #query(extra: Record<string, string>): string {
    return new URLSearchParams({ ...(this.selector ? { labelSelector: this.selector } : {}), ...extra }).toString();
  }
}
