import { promises as fsp } from 'fs';
import { join } from 'path';

/** Folders a checkpoint listing never enters: version control and installed packages. */
const ALWAYS_SKIPPED = ['.git', '.hg', '.svn', 'node_modules'];

/**
 * Names a checkpoint listing skips in a folder: the fixed ones, plus the plain names the folder's
 * root .gitignore lists (`dist`, `/out/`, `build/`); patterns with wildcards or inner slashes are
 * not interpreted (a cheap subset of .gitignore, enough to skip build output).
 */
export async function ignoredNames(folder: string): Promise<Set<string>> {
  const names = new Set(ALWAYS_SKIPPED);
  const text = await fsp.readFile(join(folder, '.gitignore'), 'utf8').catch(() => '');
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^\//, '').replace(/\/$/, '');
    if (line && !line.startsWith('#') && !line.startsWith('!') && !/[*?[\]/\\]/.test(line)) names.add(line);
  }
  return names;
}
