/** The plugins loaded when the config has no `plugins:` key (CONTRACT §3). */
export const DEFAULT_PLUGINS = ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'detect-probe', 'ui', 'probes', 'openapi'] as const;

/** SBA's `metadata-keys-to-sanitize` defaults. */
export const DEFAULT_SANITIZE = ['.*password$', '.*secret$', '.*key$', '.*token$', '.*credentials.*', '.*vcap_services$'];

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '0.0.0.0';
