import { dirname, resolve } from 'node:path';
import { cosmiconfig } from 'cosmiconfig';
import { messageOf } from '../core/errors.js';

export const CONFIG_FILE_NAMES = ['registry.config.yaml', 'registry.config.yml'];

export interface LoadedFile {
  /** Absolute path of the file, or null when none was found and the defaults apply. */
  readonly filepath: string | null;
  /** The folder that relative plugin paths are resolved against. */
  readonly baseDir: string;
  readonly raw: Record<string, unknown>;
}

/**
 * Reads `--config FILE`, or `registry.config.yaml` in `cwd` when no file is named (only there:
 * a daemon must not pick up a config from a parent folder or the user's home by surprise).
 */
export async function loadConfigFile(file: string | undefined, cwd: string): Promise<LoadedFile | { problem: string }> {
  const explorer = cosmiconfig('vigil', { searchPlaces: CONFIG_FILE_NAMES, searchStrategy: 'none', cache: false });
  try {
    const result = file ? await explorer.load(resolve(cwd, file)) : await explorer.search(cwd);
    if (!result) return { filepath: null, baseDir: cwd, raw: {} };
    const { config, filepath } = result;
    if (result.isEmpty || config === null || config === undefined) return { filepath, baseDir: dirname(filepath), raw: {} };
    if (typeof config !== 'object' || Array.isArray(config)) {
      return { problem: `${filepath}: the config must be a YAML mapping of keys to values` };
    }
    return { filepath, baseDir: dirname(filepath), raw: config as Record<string, unknown> };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { problem: `--config: file not found: ${resolve(cwd, file ?? '')}` };
    return { problem: `config file ${file ?? CONFIG_FILE_NAMES[0]}: ${messageOf(error).split('\n')[0]}` };
  }
}
