/**
 * # The runtime kit (`vigil/runtime`)
 *
 * Small tools for plugins that call instances or serve many requests at once: `InFlight` bounds
 * and cancels concurrent work, `turnSlot` hands out turns in order, `CancellableHandler` lets an
 * undici call be aborted mid-body, and `appendVary`/`varyOnWrite` keep a response's `Vary`
 * header right when several plugins add to it. No kernel file uses them; the kit uses only the
 * plugin contract (`vigil/plugin`).
 */
export { InFlight } from './in-flight.js';
export { turnSlot } from './turn-slots.js';
export { CancellableHandler } from './cancellable-handler.js';
export { appendVary, varyOnWrite } from './vary.js';
export { mapLimit } from './map-limit.js';
export { ACTUATOR_ACCEPT } from './actuator.js';
