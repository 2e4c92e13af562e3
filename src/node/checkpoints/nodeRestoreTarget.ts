import { promises as fsp } from 'fs';
import { dirname } from 'path';
import type { RestoreTarget } from '../../core/ports/checkpointStore';
import { hardLinkedWriteRefusal } from '../../core/tools/hardLinks';
import { deleteWithin, realFolders, withinWhichFolder, writeWithin } from '../confinedFiles';

/** Restores straight to disk by path (tests of what a restore does; Tally itself uses the confined target). */
export const nodeRestoreTarget: RestoreTarget = {
  async writeFile(absolute, bytes) {
    await fsp.mkdir(dirname(absolute), { recursive: true });
    await fsp.writeFile(absolute, bytes);
  },
  async deleteFile(absolute) {
    await fsp.rm(absolute, { force: true });
  },
};

/**
 * Restores to disk inside the workspace folders open now, through folders held open from the
 * workspace folder down (confinedFiles.ts): a folder that became a link to elsewhere, even at the
 * moment of the write, makes that file fail instead of being written or deleted outside; so does
 * a file with more than one hard link (writing it would change its other names too).
 */
export function confinedRestoreTarget(folders: () => readonly string[]): RestoreTarget {
  const place = async (absolute: string) => {
    const found = withinWhichFolder(await realFolders(folders()), absolute);
    if (!found) throw new Error('it is outside the workspace folders open now');
    return found;
  };
  return {
    async writeFile(absolute, bytes) {
      const { root, relative } = await place(absolute);
      await writeWithin(root, relative, bytes, { createFolders: true, check: ({ stat }) => (stat.nlink > 1 ? hardLinkedWriteRefusal(relative, stat.nlink) : undefined) });
    },
    async deleteFile(absolute) {
      const { root, relative } = await place(absolute);
      await deleteWithin(root, relative);
    },
  };
}
