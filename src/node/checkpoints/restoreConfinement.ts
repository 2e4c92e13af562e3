import { promises as fsp, realpathSync } from 'fs';
import { basename, dirname, join } from 'path';
import { isInside } from '../insideFolder';

/** The real path of `absolute`: its deepest existing ancestor resolved (links included), the rest appended. */
async function realOf(absolute: string): Promise<string> {
  const tail: string[] = [];
  let at = absolute;
  for (;;) {
    const real = await fsp.realpath(at).catch(() => undefined);
    if (real !== undefined) return join(real, ...tail.reverse());
    const parent = dirname(at);
    if (parent === at) return absolute;
    tail.push(basename(at));
    at = parent;
  }
}

/**
 * Whether a restore may write `absolute`: it lies, links resolved, inside one of the workspace
 * folders open now. A session is shared by every workspace, and a folder may have become a link
 * since the turn: a restore never writes outside the workspace the user is in.
 */
export async function insideFolders(folders: readonly string[], absolute: string): Promise<boolean> {
  const real = await realOf(absolute);
  return folders.some((folder) => {
    let root = folder;
    try {
      root = realpathSync(folder);
    } catch {
      // a folder that is gone holds nothing to restore
    }
    return isInside(root, real) && real !== root;
  });
}
