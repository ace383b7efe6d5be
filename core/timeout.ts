import { VigilError } from './errors.js';

/** Runs `step` and fails with ERR_PLUGIN_TIMEOUT if it has not settled within `ms`. */
export async function withTimeout<T>(step: () => T | Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new VigilError('ERR_PLUGIN_TIMEOUT', `${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(step), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
