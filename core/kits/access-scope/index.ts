/**
 * # The access scope kit (`vigil/access-scope`)
 *
 * What a plugin needs to show a caller only what the kernel's access decision lets it see:
 * `scopeOf(req)`, the applications the caller may see with the route's action, and
 * `EventApplications`, which application each event belonged to when it was recorded (so an
 * instance that moved to another application keeps its past where it was). The kit uses only the
 * plugin contract (`vigil/plugin`, `vigil/domain`).
 */
export { EventApplications, scopeOf, type HeldHistory } from './event-scope.js';
