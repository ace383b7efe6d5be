import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from '../support.js';

/**
 * Builds bench/sse/floor-server.c with the machine's C compiler into the temp folder and returns
 * the program's path, or undefined (with the reason printed) where there is no compiler: the
 * floor is a reference for the figures, not one of them.
 */
export async function buildFloorServer(): Promise<string | undefined> {
  const source = join(root, 'bench', 'sse', 'floor-server.c');
  const program = join(tmpdir(), `vigil-bench-sse-floor-${process.pid}`);
  try {
    await promisify(execFile)(process.env.CC ?? 'cc', ['-O2', '-o', program, source]);
    return program;
  } catch (error) {
    console.log(`  sse: the C floor server is skipped: it did not build (${(error as Error).message.split('\n')[0]})`);
    return undefined;
  }
}
