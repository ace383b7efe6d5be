/**
 * # The views kit (`vigil/views`)
 *
 * The wire (JSON) form of instances, events and applications behind `ctx.views`, with the
 * metadata keys of `metadata-keys-to-sanitize` and URL passwords masked. The kernel only knows
 * the `JsonViews` interface of the plugin contract; the composition root (`bin/`) builds these
 * views from that key and hands them over (again on reload). The kit uses only the plugin
 * contract (`vigil/plugin`, `vigil/domain`).
 */
export { createJsonViews, replaceableJsonViews } from './json-view.js';
