import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run build` writes the bundled browser app: `dist/ui-app`, beside the compiled plugins. */
export const DEFAULT_APP_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'ui-app');

/** The page at the context root; everything else the app loads lives under `ASSET_PREFIX`. */
export const INDEX_FILE = 'index.html';
export const ASSET_PREFIX = 'ui';

/**
 * Checks that `folder` holds a built app, so a missing build stops start-up with the fix named
 * instead of answering 404 for the dashboard later.
 */
export function checkAppFolder(folder: string): void {
  const missing = [INDEX_FILE, ASSET_PREFIX].filter((name) => !existsSync(join(folder, name)));
  if (missing.length > 0) {
    throw new Error(`the dashboard is not built: ${missing.map((name) => join(folder, name)).join(' and ')} missing; run \`npm run build\``);
  }
  // Assets are served to any Accept header, so none of them may be a page.
  const pages = readdirSync(join(folder, ASSET_PREFIX)).filter((name) => /\.html?(\.gz|\.br)?$/.test(name));
  if (pages.length > 0) throw new Error(`the dashboard's asset folder must not hold pages: ${pages.join(', ')}`);
}
