import { whoami } from './vigil.js';

/** The whoami route as a plugin file, for daemons started as processes (`plugins: [/abs/path/whoami-plugin.js]`). */
export default whoami;
