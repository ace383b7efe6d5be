import { test as uvuTest, type Test } from 'uvu';
import { findBinary, missingMessage, type Binary } from './binaries.js';

/**
 * Tests that need an external program say so at the top of their file:
 *
 *     const { test, path } = requireBinary('redis-server', 'apt-get install redis-server');
 *
 * Where it is installed, `test` is uvu's. Where it is not, every test of the file is reported as
 * skipped, its hooks do not run, and one line names the install command. Under CI
 * (`VIGIL_REQUIRE_BINARIES=1`, set by .ci/run) a missing program fails the file instead: its
 * suite gets a `before` hook that throws the same message.
 */

export const STRICT_ENV = 'VIGIL_REQUIRE_BINARIES';
/** Set by test/run.ts, which prints the skip lines after uvu's summary; without it they print at once. */
export const RUNNER_FLAG = Symbol.for('vigil.test-runner');

export interface RequiredBinary extends Binary {
  readonly path: string;
  readonly test: Test;
}

export interface MissingBinary {
  readonly binary: Binary;
  /** How many tests were skipped for it. */
  skipped: number;
  /** Why, where it is not a missing program (see requireRoot). */
  readonly reason?: string;
}

const missing = new Map<string, MissingBinary>();

export function missingBinaries(): readonly MissingBinary[] {
  return [...missing.values()];
}

export function skipLine({ binary, skipped, reason }: MissingBinary): string {
  return `Skipped ${skipped} test${skipped === 1 ? '' : 's'}: ${reason ?? missingMessage(binary)}`;
}

/**
 * Tests that must run as root (they create a system user and files owned by root and by it), as
 * CI does. Elsewhere they are skipped with one line saying `reason`; a machine that is not root
 * is not a missing program, so `VIGIL_REQUIRE_BINARIES=1` does not turn this into a failure.
 */
export function requireRoot(reason: string, base: Test = uvuTest): Test {
  if (process.getuid?.() === 0) return base;
  const name = `root: ${reason}`;
  let entry = missing.get(name);
  if (!entry) {
    entry = { binary: { name: 'root', install: '', path: undefined, looked: '' }, skipped: 0, reason: `not running as root: ${reason}` };
    missing.set(name, entry);
    if (!(globalThis as Record<symbol, unknown>)[RUNNER_FLAG]) console.log(`Skipping the tests that need root: ${reason}`);
  }
  return skipping(base, entry);
}

export function requireBinary(name: string, install: string, base: Test = uvuTest): RequiredBinary {
  const binary = findBinary(name, install);
  if (binary.path) return { ...binary, path: binary.path, test: base };
  if (process.env[STRICT_ENV] === '1') {
    base.before(() => {
      throw new Error(`${missingMessage(binary)} (${STRICT_ENV}=1: a missing program fails the run)`);
    });
    return { ...binary, path: '', test: base };
  }
  let entry = missing.get(name);
  if (!entry) {
    entry = { binary, skipped: 0 };
    missing.set(name, entry);
    if (!(globalThis as Record<symbol, unknown>)[RUNNER_FLAG]) console.log(`Skipping the tests that need ${name}: ${missingMessage(binary)}`);
  }
  return { ...binary, path: '', test: skipping(base, entry) };
}

/** A stand-in for uvu's `test` that turns every test into a skip and every hook into nothing. */
function skipping(base: Test, entry: MissingBinary): Test {
  const skip = (title?: string) => {
    entry.skipped += 1;
    base.skip(title);
  };
  const nothing = Object.assign(() => {}, { each: () => {} });
  return Object.assign(skip, { only: skip, skip, before: nothing, after: nothing, run: () => base.run() });
}
