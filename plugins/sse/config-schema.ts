import * as yup from 'yup';
import { duration, type ConfigSchema } from '../../core/plugin-api.js';

/** The `sse` section, as validated (durations in milliseconds). */
export interface SseConfig {
  /** How often every open stream gets a `:ping` comment (besides the one sent on connect). */
  readonly 'ping-interval': number;
  /**
   * Bytes a subscriber may leave unsent before it counts as stalled and is disconnected.
   * One frame may come on top, so the memory a subscriber holds is at most this plus one frame.
   */
  readonly 'max-buffered-bytes': number;
}

// `exact()`, not `noUnknown()`: in yup 1.7 `noUnknown()` strips unknown keys while casting, so its
// own check never sees them and a typo (`ping-intervall`) would pass silently.
const unknownKeys = 'unknown key(s): ${properties}';

export const configSchema: ConfigSchema<SseConfig> = yup.object({
  // SBA pings every 10 s (reference §8.3); proxies commonly cut idle connections at 30–60 s.
  'ping-interval': duration().min(10).default(10_000),
  'max-buffered-bytes': yup.number().integer().min(1024).default(1024 * 1024),
}).exact(unknownKeys).default({});
