import { promises as fsp } from 'fs';
import { dirname } from 'path';
import type { RestoreTarget } from '../../core/ports/checkpointStore';

/** Restores straight to disk (the command line and tests; VS Code goes through its editors). */
export const nodeRestoreTarget: RestoreTarget = {
  async writeFile(absolute, bytes) {
    await fsp.mkdir(dirname(absolute), { recursive: true });
    await fsp.writeFile(absolute, bytes);
  },
  async deleteFile(absolute) {
    await fsp.rm(absolute, { force: true });
  },
};
