import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Discovered, DiscoverySource, ListOptions, SourceContext } from '../../core/kits/discovery/index.js';
import { parseInstancesFile } from './parse-file.js';

export interface FileKeys {
  readonly path: string;
  /** What a missing file means: `keep` the instances (default), or `empty`: none listed. */
  readonly missing: 'keep' | 'empty';
}

/** Editors and `mv` produce several events per save: one re-read after they settle. */
const DEBOUNCE_MS = 200;

/**
 * A file written by configuration management, Prometheus file_sd style: the directory is
 * watched (an editor or `mv` that replaces the file is then seen; a watch on the file itself
 * would follow the old inode), and the file is read again every `refresh-interval` in case
 * events are lost. Unchanged content is not parsed again.
 */
export function fileSource(context: SourceContext<FileKeys>): DiscoverySource {
  const path = resolve(context.config.path);
  let parsed: { text: string; entries: Discovered[] } | undefined;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;

  const startWatching = (changed: () => void, signal: AbortSignal) => {
    if (watcher || signal.aborted) return;
    try {
      watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
        if (file !== null && file !== basename(path)) return;
        clearTimeout(debounce);
        debounce = setTimeout(changed, DEBOUNCE_MS);
      });
    } catch (error) {
      context.log.warn(`cannot watch ${dirname(path)} (the file is read every refresh-interval instead): ${(error as Error).message}`);
      return;
    }
    watcher.on('error', (error) => {
      // The directory itself went away: re-read by interval until it is back.
      context.log.warn(`watching ${dirname(path)} stopped: ${error.message}`);
      stopWatching();
    });
    signal.addEventListener('abort', stopWatching, { once: true });
  };
  const stopWatching = () => {
    clearTimeout(debounce);
    watcher?.close();
    watcher = undefined;
  };
  let watching: { changed: () => void; signal: AbortSignal } | undefined;

  return {
    async list({ signal }: ListOptions) {
      if (watching) startWatching(watching.changed, watching.signal);
      let text: string;
      try {
        text = await readFile(path, { encoding: 'utf8', signal });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        if (context.config.missing === 'empty') return [];
        throw new Error(`${path} does not exist (missing: keep)`);
      }
      // Unchanged text (an event for another save, the interval) is not parsed again.
      if (parsed?.text !== text) parsed = { text, entries: parseInstancesFile(text, path, context.config) };
      return parsed.entries;
    },
    watch(changed, signal) {
      watching = { changed, signal };
      startWatching(changed, signal);
    },
    async close() {
      stopWatching();
    },
  };
}
