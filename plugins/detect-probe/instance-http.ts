import { INSTANCE_HTTP, type InstanceHttpClient, type Services } from '../../core/plugin-api.js';

/**
 * The monitor's instance client, looked up when detection runs rather than at setup: the
 * declared dependency puts monitor's setup first, but a late lookup does not rely on that, and
 * a missing provider fails the detection with a message saying what is missing.
 */
export function instanceHttpOf(services: Services): () => InstanceHttpClient {
  return () => {
    const client = services.use(INSTANCE_HTTP);
    if (!client) throw new Error(`no instance HTTP client (${INSTANCE_HTTP.key}): it is provided by the "monitor" plugin`);
    return client;
  };
}
