import { promises as fsp } from 'fs';
import { dirname } from 'path';

/** The file operations a store uses to write; tests replace them to simulate a full disk. */
export interface WriteFs {
  writeFileSynced(path: string, data: Uint8Array): Promise<void>;
  /** Writes (or appends to) a file without waiting for the disk; `syncFile` does that later. */
  writeFile(path: string, data: Uint8Array, append?: boolean): Promise<void>;
  syncFile(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  syncDirectory(path: string): Promise<void>;
}

export const nodeWriteFs: WriteFs = {
  async writeFileSynced(path, data) {
    const handle = await fsp.open(path, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  writeFile: (path, data, append) => fsp.writeFile(path, data, { flag: append ? 'a' : 'w' }),
  async syncFile(path) {
    const handle = await fsp.open(path, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => fsp.rename(from, to),
  async syncDirectory(path) {
    try {
      const handle = await fsp.open(path, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch {
      // Some platforms cannot fsync a directory; the rename is still atomic.
    }
  },
};

/**
 * The same operations without any fsync: for a store that is thrown away when its process exits
 * (the replay CLI), where waiting on the disk buys nothing.
 */
export function withoutSync(fs: WriteFs): WriteFs {
  return { ...fs, writeFileSynced: (path, data) => fs.writeFile(path, data), syncFile: async () => undefined, syncDirectory: async () => undefined };
}

/**
 * Replaces `path` atomically: the data goes to a temp file in the same folder, is fsynced, then
 * renamed over the target. A crash leaves either the old file or the new one, never a mix.
 */
export async function writeAtomically(fs: WriteFs, path: string, data: Uint8Array, tempSuffix: string): Promise<void> {
  const temp = `${path}.tmp-${tempSuffix}`;
  try {
    await fs.writeFileSynced(temp, data);
    await fs.rename(temp, path);
  } catch (error) {
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await fs.syncDirectory(dirname(path));
}
