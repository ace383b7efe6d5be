import { definePlugin } from '../../core/plugin-api.js';
import { DETECTION_STRATEGY, instanceHttpOf } from '../../core/kits/services/index.js';
import { indexStrategy } from './index-strategy.js';

/**
 * `detect-index`: endpoint detection by the actuator index query, SBA's first choice
 * (CONTRACT §3, reference §5.1). No config section; the request goes through the monitor's
 * instance client, which adds credentials and applies the `actuator-index` timeout and retries.
 */
export default definePlugin({
  name: 'detect-index',
  dependencies: ['monitor'],
  configKey: null,
  create(ctx) {
    ctx.services.contribute(DETECTION_STRATEGY, indexStrategy({ http: instanceHttpOf(ctx.services), log: ctx.log }));
  },
});
