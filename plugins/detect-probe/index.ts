import { definePlugin } from '../../core/plugin-api.js';
import { DETECTION_STRATEGY, instanceHttpOf } from '../../core/kits/services/index.js';
import { probedEndpointsSchema } from './config.js';
import { parseProbeEntry, type ProbeEntry } from './probe-entry.js';
import { probeStrategy } from './probe-strategy.js';

/**
 * `detect-probe`: endpoint detection by OPTIONS probes over the `probed-endpoints` list
 * (CONTRACT §2-§3, reference §5.2), SBA's fallback when the index query finds nothing. The key
 * is SBA's, not the plugin's name, so existing configs carry over.
 */
export default definePlugin({
  name: 'detect-probe',
  dependencies: ['monitor'],
  configKey: 'probed-endpoints',
  configSchema: probedEndpointsSchema,
  create(ctx) {
    // The schema has already rejected malformed entries, so each one parses.
    const entries = ctx.config.map((entry) => parseProbeEntry(entry)).filter((entry): entry is ProbeEntry => entry !== undefined);
    ctx.services.contribute(DETECTION_STRATEGY, probeStrategy({ entries, http: instanceHttpOf(ctx.services), log: ctx.log }));
  },
});
