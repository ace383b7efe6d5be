import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from the compiled test's own location (tests may run from any build dir). */
export const repoRoot: string = (() => {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'registry.config.yaml'))) return dir;
    if (dirname(dir) === dir) throw new Error('repository root not found');
  }
})();
