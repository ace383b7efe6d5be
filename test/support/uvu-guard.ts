import * as uvu from 'uvu';
import type { Callback, Test } from 'uvu';

/**
 * What every test file gets for `import { test, suite } from 'uvu'` under the project's runner
 * (test/run.ts redirects the import here): uvu's own `suite`, `test` and `exec`, with hooks that
 * report their errors. uvu 0.5 swallows an error thrown by `before` or `after.each` (its runner
 * returns from a `finally`): the suite's tests silently do not run, the run exits 0. An error
 * thrown by `after` rejects the whole run and loses every later suite. Here each is recorded
 * for the runner to print and fail on; `after` errors are not rethrown, so later suites run.
 */

type Context = Record<string, unknown>;

export interface HookFailure {
  /** The test file, relative to the folder the runner was given. */
  readonly file: string;
  readonly suite: string;
  readonly hook: 'before' | 'after' | 'after.each';
  /** The test an `after.each` ran after. */
  readonly test: string;
  readonly error: unknown;
}

/** Tests registered in a suite whose `run()` was never called: they would never run. */
export interface UnrunSuite {
  readonly file: string;
  readonly suite: string;
  readonly tests: number;
}

interface Tracked {
  file: string;
  readonly name: string;
  pending: number;
}

const failures: HookFailure[] = [];
const tracked: Tracked[] = [];
let currentFile = '';

/** The runner says which file it is importing, so what the file registers is known by its file. */
export function loading(file: string): void {
  currentFile = file;
}

export function hookFailures(): readonly HookFailure[] {
  return failures;
}

/** Suites with tests registered and no `run()` since; each is reported once. */
export function takeUnrun(): UnrunSuite[] {
  const unrun = tracked.filter((suite) => suite.pending > 0).map(({ file, name, pending }) => ({ file, suite: name, tests: pending }));
  for (const suite of tracked) suite.pending = 0;
  return unrun;
}

function guard<T>(inner: Test<T>, name: string): Test<T> {
  const state: Tracked = { file: currentFile, name, pending: 0 };
  tracked.push(state);
  const wrap = (hook: HookFailure['hook'], handler: Callback<T>, rethrow: boolean): Callback<T> => {
    const file = currentFile;
    return async (context) => {
      try {
        await handler(context);
      } catch (error) {
        // uvu calls `after.each` a second time when it threw after a passing test: record it once.
        const known = failures.some((f) => f.file === file && f.suite === name && f.hook === hook && f.test === context.__test__);
        if (!known) failures.push({ file, suite: name, hook, test: context.__test__, error });
        if (rethrow) throw error;
      }
    };
  };
  const registered = (add: (title: string, handler: Callback<T>) => void) => (title: string, handler: Callback<T>) => {
    state.file = currentFile;
    state.pending += 1;
    add(title, handler);
  };
  const test = registered((title, handler) => inner(title, handler)) as Test<T>;
  test.only = registered((title, handler) => inner.only(title, handler));
  test.skip = (title, handler) => inner.skip(title, handler);
  // `before.each` needs no guard: uvu reports its error as the test's failure.
  test.before = Object.assign((handler: Callback<T>) => inner.before(wrap('before', handler, true)), {
    each: (handler: Callback<T>) => inner.before.each(handler),
  });
  test.after = Object.assign((handler: Callback<T>) => inner.after(wrap('after', handler, false)), {
    each: (handler: Callback<T>) => inner.after.each(wrap('after.each', handler, true)),
  });
  test.run = () => {
    state.pending = 0;
    inner.run();
  };
  return test;
}

export function suite<T = Context>(title = '', context?: T): Test<T> {
  return guard(uvu.suite(title, context), title);
}

export const test: Test<Context> = suite();
export const exec = uvu.exec;
