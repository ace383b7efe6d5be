import { changeInfoCommand, type Ownership, type Registry } from '../../core/plugin-api.js';
import { endpointUrl } from '../../core/domain/index.js';
import { isAbort } from './call-error.js';
import type { CancelToken } from './cancellation.js';
import type { CheckOutcome } from './check-outcome.js';
import type { InstanceCalls } from './instance-client.js';
import { isJsonType, parseJsonObject } from './media-type.js';
import { recordResult } from './record.js';

const NO_INFO_STATUSES = new Set(['OFFLINE', 'UNKNOWN']);
/** Bodies up to this size are looked up among the recent ones before being parsed. */
const SHARED_BODY_BYTES = 4096;
const SHARED_BODIES = 256;

/**
 * Instances of one build mostly answer the very same info body; each one parsed apart is ~400
 * bytes held per instance in objects and strings. The same text yields the same (never changed)
 * object; the table is bounded, and emptied when full.
 */
const recentBodies = new Map<string, Record<string, unknown> | undefined>();

function sharedInfo(body: Buffer): Record<string, unknown> | undefined {
  if (body.length > SHARED_BODY_BYTES) return parseJsonObject(body);
  const text = body.toString('latin1');
  if (recentBodies.has(text)) return recentBodies.get(text);
  const parsed = parseJsonObject(body);
  if (recentBodies.size >= SHARED_BODIES) recentBodies.clear();
  recentBodies.set(text, parsed);
  return parsed;
}

/**
 * SBA's InfoUpdater: reads the `info` endpoint of an instance that has one and is reachable.
 * Anything but a 2xx JSON answer, or a failed call, clears the info (reference §4.4).
 */
export class InfoUpdater {
  constructor(
    private readonly registry: Registry,
    private readonly ownership: Ownership,
    private readonly client: InstanceCalls,
    private readonly maxBodyBytes: number,
  ) {}

  readonly update = async (id: string, cancel: CancelToken): Promise<CheckOutcome> => {
    const instance = this.registry.get(id);
    if (!instance?.registered) return 'gone';
    const url = endpointUrl(instance, 'info');
    if (!url || NO_INFO_STATUSES.has(instance.statusInfo.status)) return 'skipped';
    let info: Record<string, unknown> = {};
    let outcome: CheckOutcome = 'ok';
    try {
      const response = await this.client.call(instance, url, { endpointId: 'info', maxBodyBytes: this.maxBodyBytes }, cancel);
      if (response.status >= 200 && response.status < 300 && isJsonType(response.contentType)) info = sharedInfo(response.body) ?? {};
    } catch (error) {
      if (cancel.cancelled || isAbort(error)) return 'skipped';
      outcome = 'error';
    }
    await recordResult(this.registry, this.ownership, id, changeInfoCommand(info));
    return outcome;
  };
}
