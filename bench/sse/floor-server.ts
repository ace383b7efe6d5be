import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from '../support.js';

/**
 * Builds bench/sse/floor-server.c with the machine's C compiler into the temp folder and returns
 * the program's path, or why it could not (no compiler, say): then the figure measured against
 * the floor is reported as not measured, with that reason.
 */
export async function buildFloorServer(): Promise<{ program: string } | { reason: string }> {
  const source = join(root, 'bench', 'sse', 'floor-server.c');
  const program = join(tmpdir(), `vigil-bench-sse-floor-${process.pid}`);
  const compiler = process.env.CC ?? 'cc';
  try {
    await promisify(execFile)(compiler, ['-O2', '-o', program, source]);
    return { program };
  } catch (error) {
    return { reason: `the C floor server did not build with \`${compiler}\` (${(error as Error).message.split('\n')[0]})` };
  }
}
