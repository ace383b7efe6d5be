/**
 * # The runtime kit (`vigil/runtime`)
 *
 * Small tools for plugins that call instances or serve many requests at once: `InFlight` keeps
 * the calls in progress for a shutdown to reach, `mapLimit` is a worker pool, `turnSlot` lets
 * work that follows I/O wait for the requests read with it, `CancellableHandler` lets an undici
 * dispatch be aborted at any point, `ACTUATOR_ACCEPT` is Spring Boot Admin's default `Accept` for
 * calls to instances, `appendVary`/`varyOnWrite` keep a response's `Vary` right when several
 * plugins add to it, and `LabelledCounts`/`LabelledHistogram` keep a `METRICS` family's counts.
 * No kernel file uses them; the kit uses only the plugin contract (`vigil/plugin`).
 */
export { InFlight } from './in-flight.js';
export { turnSlot } from './turn-slots.js';
export { CancellableHandler } from './cancellable-handler.js';
export { appendVary, varyOnWrite } from './vary.js';
export { mapLimit } from './map-limit.js';
export { ACTUATOR_ACCEPT } from './actuator.js';
export { LabelledCounts, LabelledHistogram } from './labelled-metrics.js';
