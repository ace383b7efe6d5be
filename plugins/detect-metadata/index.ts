import { definePlugin } from '../../core/plugin-api.js';
import { DETECTION_STRATEGY } from '../../core/kits/services/index.js';
import { metadataStrategy } from './metadata-strategy.js';

/**
 * `detect-metadata`: endpoints listed by the instance itself in its metadata key `endpoints`
 * (CONTRACT §3). No network calls and no config section; it depends on `monitor` because only
 * the monitor runs detection strategies, so without it the plugin would silently do nothing.
 */
export default definePlugin({
  name: 'detect-metadata',
  dependencies: ['monitor'],
  configKey: null,
  create(ctx) {
    ctx.services.contribute(DETECTION_STRATEGY, metadataStrategy());
  },
});
