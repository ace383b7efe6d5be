import { rename, writeFile } from 'node:fs/promises';

/** Writes a file the way configuration management should: a new file renamed over the old one. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}
