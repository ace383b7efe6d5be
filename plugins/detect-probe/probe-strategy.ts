import { joinUrl, maskUrlPassword, type Instance } from '../../core/domain/index.js';
import type { Logger } from '../../core/plugin-api.js';
import type { DetectionStrategy, InstanceHttpClient } from '../../core/kits/services/index.js';
import { mapLimit } from '../../core/kits/runtime/index.js';
import type { ProbeEntry } from './probe-entry.js';

/**
 * SBA sends every probe at once; 30 OPTIONS per instance against a fleet registering together is
 * a burst worth bounding, and 8 keeps detection about as fast for one instance.
 */
export const PROBE_CONCURRENCY = 8;

/** An OPTIONS answer has no body worth reading; a cap stops an instance that streams one anyway. */
const MAX_PROBE_BODY_BYTES = 64 * 1024;

export interface ProbeStrategyOptions {
  readonly entries: readonly ProbeEntry[];
  /** The monitor's client, looked up per detection. */
  readonly http: () => InstanceHttpClient;
  readonly log: Logger;
  readonly concurrency?: number;
}

/**
 * Probe detection (reference §5.2): `OPTIONS <managementUrl>/<path>` per entry; a 2xx means the
 * endpoint exists at that URL. Failures of single probes are "absent". When entries share an id,
 * the first listed that answered wins, whatever order the answers came in.
 */
export function probeStrategy({ entries, http, log, concurrency = PROBE_CONCURRENCY }: ProbeStrategyOptions): DetectionStrategy {
  return {
    name: 'detect-probe',
    async detect(instance, signal) {
      const managementUrl = instance.registration?.managementUrl;
      if (!managementUrl) return [];
      const client = http();
      const urls = entries.map((entry) => joinUrl(managementUrl, entry.path));
      // Two entries at one path (e.g. `health` twice) need one probe.
      const unique = [...new Set(urls)];
      const present = new Set<string>();
      await mapLimit(unique, concurrency, async (url) => {
        if (await answers(client, instance, url, signal)) present.add(url);
      }, signal);
      signal.throwIfAborted();

      const found = new Map<string, string>();
      entries.forEach((entry, index) => {
        const url = urls[index]!;
        if (present.has(url) && !found.has(entry.id)) found.set(entry.id, url);
      });
      log.debug(`probed ${unique.length} paths of instance ${instance.id}: ${present.size} answered 2xx`, { url: maskUrlPassword(managementUrl) });
      return [...found].map(([id, url]) => ({ id, url }));
    },
  };
}

async function answers(client: InstanceHttpClient, instance: Instance, url: string, signal: AbortSignal): Promise<boolean> {
  try {
    const { status } = await client.request(instance, url, { method: 'OPTIONS', signal, maxBodyBytes: MAX_PROBE_BODY_BYTES });
    return status >= 200 && status <= 299;
  } catch {
    // Refused, reset or timed out: absent, like a 404 (an abort is rethrown by the caller).
    return false;
  }
}
