import { maskUrlPassword } from '../../core/domain/index.js';
import { ACTUATOR_ACCEPT } from '../../core/kits/runtime/index.js';
import { messageOf, type Logger } from '../../core/plugin-api.js';
import { type DetectionStrategy, type InstanceHttpClient } from '../../core/kits/services/index.js';
import { alignScheme, endpointsFromIndex, isActuatorIndexType } from './index-links.js';

/** An index is a few KiB; the cap keeps a misbehaving instance from filling memory. */
const MAX_INDEX_BYTES = 1024 * 1024;

export interface IndexStrategyOptions {
  /** The monitor's client, looked up per detection. */
  readonly http: () => InstanceHttpClient;
  readonly log: Logger;
}

/**
 * Query-index detection (reference §5.1): `GET <managementUrl>` and take over its `_links`.
 * Every kind of failure (status, media type, body, connection) yields `[]` so the next strategy
 * (usually probing) gets its turn; only an abort propagates, so the chain stops too.
 */
export function indexStrategy({ http, log }: IndexStrategyOptions): DetectionStrategy {
  return {
    name: 'detect-index',
    async detect(instance, signal) {
      const registration = instance.registration;
      const managementUrl = registration?.managementUrl;
      // Management on the service URL means no separate actuator base, so SBA sends no request at all.
      if (!managementUrl || managementUrl === registration.serviceUrl) return [];
      const client = http();
      const nothing = (why: string) => {
        log.debug(`actuator index of instance ${instance.id} ${why}; handing over to the next strategy`, { url: maskUrlPassword(managementUrl) });
        return [];
      };

      let response;
      try {
        response = await client.request(instance, managementUrl, {
          method: 'GET',
          // Without the v1 type: a v1 index has no `_links` this strategy could read.
          headers: { accept: ACTUATOR_ACCEPT },
          signal,
          endpointId: 'actuator-index',
          maxBodyBytes: MAX_INDEX_BYTES,
        });
      } catch (error) {
        signal.throwIfAborted();
        return nothing(`could not be read (${messageOf(error)})`);
      }
      if (response.status < 200 || response.status > 299) return nothing(`answered ${response.status}`);
      if (!isActuatorIndexType(response.contentType)) return nothing(`has Content-Type "${response.contentType}", not an actuator v2/v3 type`);

      let body: unknown;
      try {
        body = JSON.parse(response.body.toString('utf8'));
      } catch {
        return nothing('is not valid JSON');
      }
      const found = endpointsFromIndex(body);
      if (found.length === 0) return nothing('lists no usable links');
      const { endpoints, changed } = alignScheme(managementUrl, found);
      if (changed) log.warn(`actuator index of instance ${instance.id} is served over https but links to http: URLs; using https: for them`, { url: maskUrlPassword(managementUrl) });
      return endpoints;
    },
  };
}
