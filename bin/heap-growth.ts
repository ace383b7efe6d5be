import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full GC kept, in percent.
 *
 * A daemon that checks thousands of instances a second promotes a steady trickle of short-lived
 * objects, and V8's default heuristic then lets the heap grow to several times the live set
 * before collecting it. At 30 % the old generation stays close to the live set, for a few more
 * full collections; below that the collections cost more CPU than the memory is worth
 * (bench/REPORT.md, measured under bench/monitoring).
 */
export const DEFAULT_HEAP_GROWING_PERCENT = 30;

/**
 * The young generation's cap, passed on the command line by `npm start` and the systemd unit (a
 * `#!` line cannot carry it portably: BusyBox's env has no -S): V8 reads it only when the heap is
 * set up, so it cannot be set from here. V8's default lets each semi-space grow to 16 MB under the
 * monitor's steady allocation; at 4 MB the daemon keeps less resident for a little more CPU,
 * while at 2 MB too much survives a scavenge and the CPU climbs (bench/REPORT.md).
 */
export const SEMI_SPACE_FLAG = '--max-semi-space-size=4';

/**
 * glibc's malloc arenas, set in the environment by `npm start`, the systemd unit and the image:
 * glibc reads it once, before any JavaScript runs. By default each thread that allocates (V8's
 * GC and compiler workers, libuv's pool) may get an arena of its own, up to eight per core, and
 * each keeps its freed pages; with two, a node of the 100,000-over-5 benchmark kept a few MB less
 * resident (bench/REPORT.md, tenth session); the monitoring benchmark's CPU did not rise.
 */
export const MALLOC_ARENA_MAX = 2;

/** Flags that show the operator chose the old generation's size or growth; those win over ours. */
const OPERATOR_HEAP_FLAGS = /--(heap-growing-percent|max-old-space-size|max-heap-size)\b/;

/**
 * Sets the growth limit unless the operator set a heap flag in `NODE_OPTIONS` or on the node
 * command line. V8 reads this flag at every full GC, so setting it at startup takes effect.
 * Returns the flag set, or undefined when left to the operator.
 */
export function limitHeapGrowth(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  if (OPERATOR_HEAP_FLAGS.test([...execArgv, nodeOptions ?? ''].join(' '))) return undefined;
  const flag = `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`;
  setFlagsFromString(flag);
  return flag;
}

/**
 * A note for the log when the daemon runs on glibc without MALLOC_ARENA_MAX (plain
 * `node bin/vigil.js`, or the `vigil` command without it in the environment); `glibc` reads the
 * runtime's glibc version, undefined elsewhere (musl, macOS), where the variable means nothing.
 */
export function mallocArenaHint(env: NodeJS.ProcessEnv, glibc: () => string | undefined = glibcVersion): string | undefined {
  if (env.MALLOC_ARENA_MAX !== undefined || glibc() === undefined) return undefined;
  return `glibc's malloc arenas are not capped: set MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX} in the environment (as npm start, the systemd unit and the image do) to keep a few MB less resident`;
}

/** The glibc version this process runs on, from its diagnostic report; undefined on other C libraries. */
function glibcVersion(): string | undefined {
  const header = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
  return header?.glibcVersionRuntime;
}

/** A note for the log when the daemon was started without a young-generation cap (plain `node bin/vigil.js`). */
export function semiSpaceHint(execArgv: readonly string[], nodeOptions: string | undefined): string | undefined {
  if (/--max-semi-space-size\b/.test([...execArgv, nodeOptions ?? ''].join(' '))) return undefined;
  return `V8's young generation is not capped: start with \`node ${SEMI_SPACE_FLAG} bin/vigil.js\` (as npm start and the systemd unit do), or put it in NODE_OPTIONS, to keep ~20 MB less resident`;
}
