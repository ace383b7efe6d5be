import { randomInt } from 'node:crypto';

/** `npm run test:long` sets VIGIL_LONG=1: the full counts the hardening issue asks for. */
export const LONG = process.env.VIGIL_LONG === '1';

/**
 * The fuzz seed and request count. The seed is random unless VIGIL_FUZZ_SEED is set, and it is
 * always printed, so any failure can be replayed exactly: `VIGIL_FUZZ_SEED=<seed> npm test`.
 */
export function fuzzSettings(): { readonly seed: number; readonly runs: number } {
  const given = process.env.VIGIL_FUZZ_SEED;
  const seed = given !== undefined && given !== '' ? Number(given) : randomInt(0, 2 ** 31 - 1);
  if (!Number.isSafeInteger(seed)) throw new Error(`VIGIL_FUZZ_SEED must be an integer, got ${JSON.stringify(given)}`);
  const runs = Number(process.env.VIGIL_FUZZ_RUNS ?? (LONG ? 10_000 : 1_000));
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`VIGIL_FUZZ_RUNS must be a positive integer, got ${JSON.stringify(process.env.VIGIL_FUZZ_RUNS)}`);
  return { seed, runs };
}
