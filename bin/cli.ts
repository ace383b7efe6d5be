import { parseArgs } from 'node:util';
import { builtinPlugins } from './builtin-plugins.js';

export interface CliOptions {
  /** `plugin`: a command a plugin brings (`name`), e.g. basic-auth's `hash-password`. */
  readonly command: 'run' | 'help' | 'version' | 'plugin' | 'probe' | 'migrate-config';
  /** The command's name, for `plugin`. */
  readonly name?: string;
  /** The arguments after the command, for `probe` and `plugin`. */
  readonly args?: readonly string[];
  readonly configFile?: string;
  /** `migrate-config`: the Spring Boot Admin file to convert, and profiles to take as active. */
  readonly migrate?: { readonly file: string; readonly profiles: readonly string[] };
  readonly checkConfig: boolean;
  /** Flag values by config key; they beat the config file. */
  readonly overrides: Record<string, unknown>;
}

const LEVELS = ['error', 'warn', 'info', 'debug'];
const FORMATS = ['text', 'json'];

export const HELP = `Usage: vigil [flags]

Vigil: instance registry and monitoring daemon (Spring Boot Admin compatible).

Flags (a flag beats the config file, which beats the default):
  --config FILE         YAML config file (default: ./registry.config.yaml if present, else built-in defaults)
  --port N              listen port; 0 = any free port (default: 8080)
  --host ADDR           listen address (default: 0.0.0.0)
  --context-path PATH   prefix for every HTTP path, e.g. /admin (default: none)
  --log-level LEVEL     error, warn, info or debug (default: info)
  --log-format FORMAT   text or json, one JSON object a line (default: text)
  --check-config        validate the config, print the problems, exit 0 (valid) or 1
  --help                show this help
  --version             print the version

Commands:
  vigil hash-password   read a password on stdin, print a scrypt hash for basic-auth users[].password
  vigil probe URL [--wait DURATION]
                        GET a probe (e.g. http://127.0.0.1:8080/health/readiness): exit 0 on 200, else 1;
                        with --wait, ask again until 200 or the time is up
  vigil migrate-config FILE [--profiles a,b]
                        print a registry.config.yaml converted from a Spring Boot Admin server's
                        application.yml or application.properties (profiles: documents to include)
`;

/** Parses argv (without node and the script). Returns the options, or one problem per line. */
export function parseCli(argv: readonly string[]): { ok: true; options: CliOptions } | { ok: false; problems: string[] } {
  const first = argv[0];
  if (first !== undefined && Object.values(builtinPlugins).some((plugin) => plugin.commands?.includes(first))) {
    return { ok: true, options: { command: 'plugin', name: first, args: argv.slice(1), checkConfig: false, overrides: {} } };
  }
  if (argv[0] === 'probe') return { ok: true, options: { command: 'probe', args: argv.slice(1), checkConfig: false, overrides: {} } };
  if (argv[0] === 'migrate-config') return parseMigrate(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'context-path': { type: 'string' },
        'log-level': { type: 'string' },
        'log-format': { type: 'string' },
        'check-config': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
        version: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    return { ok: false, problems: [`${(error as Error).message} (see --help)`] };
  }
  const { values } = parsed;
  const problems: string[] = [];
  const overrides: Record<string, unknown> = {};
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) problems.push(`--port: must be an integer from 0 to 65535, got "${values.port}"`);
    else overrides.port = port;
  }
  if (values.host !== undefined) {
    if (values.host.trim() === '') problems.push('--host: must not be empty');
    else overrides.host = values.host;
  }
  if (values['context-path'] !== undefined) overrides['context-path'] = values['context-path'];
  if (values['log-level'] !== undefined) {
    if (!LEVELS.includes(values['log-level'])) problems.push(`--log-level: must be one of ${LEVELS.join(', ')}, got "${values['log-level']}"`);
    else overrides['log-level'] = values['log-level'];
  }
  if (values['log-format'] !== undefined) {
    if (!FORMATS.includes(values['log-format'])) problems.push(`--log-format: must be one of ${FORMATS.join(', ')}, got "${values['log-format']}"`);
    else overrides['log-format'] = values['log-format'];
  }
  if (values.config !== undefined && values.config.trim() === '') problems.push('--config: must name a file');
  if (problems.length > 0) return { ok: false, problems };
  const command = values.help ? 'help' : values.version ? 'version' : 'run';
  return {
    ok: true,
    options: { command, checkConfig: values['check-config'], overrides, ...(values.config ? { configFile: values.config } : {}) },
  };
}

function parseMigrate(argv: readonly string[]): { ok: true; options: CliOptions } | { ok: false; problems: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], strict: true, allowPositionals: true, options: { profiles: { type: 'string' } } });
  } catch (error) {
    return { ok: false, problems: [`migrate-config: ${(error as Error).message} (see --help)`] };
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length > 0) return { ok: false, problems: ['migrate-config takes one file: vigil migrate-config application.yml [--profiles a,b]'] };
  const profiles = (parsed.values.profiles ?? '').split(',').map((profile) => profile.trim()).filter(Boolean);
  return { ok: true, options: { command: 'migrate-config', checkConfig: false, overrides: {}, migrate: { file, profiles } } };
}
