import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** An external program some tests or benchmarks drive (Debian's chromium, redis-server, …). */
export interface Binary {
  readonly name: string;
  /** The command that installs it, named in every message about its absence. */
  readonly install: string;
  /** Where it is, or undefined where it is not. */
  readonly path: string | undefined;
  /** Where it was looked for, in words. */
  readonly looked: string;
}

/** `VIGIL_BIN_` and the name in capitals, `-` as `_`: `VIGIL_BIN_REDIS_SERVER` names redis-server's path. */
export function binaryEnvVar(name: string): string {
  return `VIGIL_BIN_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds `name` on PATH (and /usr/bin, /usr/sbin, where Debian puts it even for a trimmed PATH).
 * The environment variable `binaryEnvVar(name)`, when set, is the only place looked: that is how
 * a test run pretends a binary is missing, or uses another build.
 */
export function findBinary(name: string, install: string): Binary {
  const variable = binaryEnvVar(name);
  const override = process.env[variable];
  if (override) return { name, install, path: isExecutable(override) ? override : undefined, looked: `${variable}=${override}` };
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/sbin'];
  const path = dirs.map((dir) => join(dir, name)).find(isExecutable);
  return { name, install, path, looked: `PATH, or ${variable}` };
}

export function missingMessage(binary: Binary): string {
  return `${binary.name} not found (looked in ${binary.looked}): install it with \`${binary.install}\``;
}
