/**
 * vigil-plugin-detect-static: endpoint detection from a static list in the config.
 *
 *   plugins: [rest-api, monitor, vigil-plugin-detect-static, detect-index, detect-probe]
 *   detect-static:
 *     endpoints:
 *       orders: [health, info, "beans:custom-beans"]
 *
 * An instance of application `orders` gets those endpoints under its managementUrl; other
 * applications get nothing from this strategy, so the next one in `plugins:` runs.
 *
 * Plain JavaScript with no build step and no imports: the token is matched by its key, so the
 * plugin does not need `vigil` at run time (it is a peer dependency for `vigil/testing`).
 */

/** Vigil's `DETECTION_STRATEGY` token; tokens with the same key are the same service. */
const DETECTION_STRATEGY = { key: 'vigil.detection-strategy' };

// An id without colon, slash or space, optionally `:path`, like Vigil's `probed-endpoints`.
const ENTRY = /^([^\s:/]+)(?::(\S+))?$/;

/**
 * Vigil only needs `validate()` from a config schema. Problems are reported yup's way (an error
 * with one `inner` entry per problem, each with a `path`), so Vigil names every offending key.
 */
const configSchema = {
  async validate(value) {
    if (value === undefined) return { endpoints: {} };
    const problems = [];
    const problem = (path, message) => problems.push({ path, message: path ? `${path} ${message}` : `this ${message}` });
    if (!isObject(value)) problem('', 'must be an object with an "endpoints" map');
    else {
      for (const key of Object.keys(value)) if (key !== 'endpoints') problem(key, 'is not a known key (only "endpoints")');
      const endpoints = value.endpoints ?? {};
      if (!isObject(endpoints)) problem('endpoints', 'must map application names to lists of endpoint ids');
      else {
        for (const [app, ids] of Object.entries(endpoints)) {
          const path = `endpoints["${app}"]`;
          if (!Array.isArray(ids)) problem(path, 'must be a list of endpoint ids such as [health, info]');
          else ids.forEach((id, index) => {
            if (typeof id !== 'string' || !ENTRY.test(id)) problem(`${path}[${index}]`, `must be an endpoint id or id:path (got ${JSON.stringify(id)})`);
          });
        }
      }
    }
    if (problems.length > 0) {
      const error = new Error(problems.map((p) => p.message).join('; '));
      error.inner = problems;
      throw error;
    }
    return { endpoints: { ...value.endpoints } };
  },
};

/** The strategy: the configured ids of the instance's application, under its managementUrl. */
function staticStrategy(endpoints) {
  return {
    name: 'detect-static',
    async detect(instance, signal) {
      signal.throwIfAborted();
      const registration = instance.registration;
      const ids = registration ? endpoints[registration.name] : undefined;
      if (!ids || !registration.managementUrl) return [];
      const base = registration.managementUrl.replace(/\/+$/, '');
      const found = new Map();
      for (const entry of ids) {
        const [, id, path = id] = ENTRY.exec(entry);
        if (!found.has(id)) found.set(id, `${base}/${path.replace(/^\/+/, '')}`);
      }
      return [...found].map(([id, url]) => ({ id, url }));
    },
  };
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The plugin object: Vigil takes the default export. */
export default {
  name: 'detect-static',
  version: '1.0.0',
  // Only the monitor runs detection strategies; without it this plugin would do nothing.
  dependencies: ['monitor'],
  configSchema,
  setup(ctx) {
    ctx.services.contribute(DETECTION_STRATEGY, staticStrategy(ctx.config.endpoints));
    ctx.log.debug(`static endpoints for ${Object.keys(ctx.config.endpoints).length} application(s)`);
  },
};
