import type { InitializeHook, ResolveHook } from 'node:module';

/**
 * A module resolution hook registered by test/run.ts: every import that resolves to uvu's main
 * module (`'uvu'`, or a path to its dist file) is answered with the guard instead, except the
 * guard's own. No test file can forget to use the guard, nor reach around it.
 */

const UVU_MAIN = /\/node_modules\/uvu\/dist\/index\.m?js$/;
let guard = '';

export const initialize: InitializeHook<{ guard: string }> = (data) => {
  guard = data.guard;
};

export const resolve: ResolveHook = async (specifier, context, next) => {
  const resolved = await next(specifier, context);
  if (context.parentURL !== guard && UVU_MAIN.test(resolved.url)) return { url: guard, shortCircuit: true };
  return resolved;
};
