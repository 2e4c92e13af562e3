import { promises as fsp } from 'fs';
import { join } from 'path';
import type { StoreLayout } from './storeLayout';
import { removeStaleHeartbeats } from './writerLiveness';

/** Leftovers younger than this may belong to a writer still saving them. */
const LEFTOVER_AGE_MS = 60_000;

/**
 * Removes what a crashed writer left behind (older than a minute): temp files, and the parts of
 * a large result whose main file was never written (the result was never referenced).
 */
export async function cleanLeftovers(layout: StoreLayout, now: number): Promise<void> {
  await cleanFolders([layout.blobsDir, layout.indexDir], layout.blobsDir, now);
  await removeStaleHeartbeats(layout.root, now).catch(() => undefined);
}

/** The same in every session folder: one `readdir` each, so it runs in the background. */
export async function cleanSessionLeftovers(layout: StoreLayout, now: number): Promise<void> {
  const sessionsDir = layout.sessionsDir;
  const dirs = await fsp.readdir(sessionsDir).catch(() => [] as string[]);
  await cleanFolders(dirs.map((d) => join(sessionsDir, d)), layout.blobsDir, now);
}

async function cleanFolders(folders: string[], blobs: string, now: number): Promise<void> {
  for (const dir of folders) {
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    const present = new Set(names);
    for (const name of names) {
      const part = /^([a-z0-9]+)\.p\d+\.sqlite$/.exec(name);
      // Parts whose main file was set aside as damaged are kept with it, for inspection.
      const orphanPart = dir === blobs && part !== null && !present.has(`${part[1]}.sqlite`) && !names.some((n) => n.startsWith(`${part[1]}.sqlite.corrupt-`));
      if (!name.includes('.tmp-') && !orphanPart) continue;
      const path = join(dir, name);
      const stat = await fsp.stat(path).catch(() => undefined);
      if (stat && now - stat.mtimeMs > LEFTOVER_AGE_MS) await fsp.rm(path, { force: true }).catch(() => undefined);
    }
  }
}
