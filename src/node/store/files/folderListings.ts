import { promises as fsp } from 'fs';
import { dirname } from 'path';

/** What a read needs of a file on disk to tell whether it changed: its size and modification time. */
export interface FileStat {
  size: number;
  mtimeMs: number;
}

/** A folder's own stat: it changes whenever a file in it is added, removed or replaced by a rename. */
interface FolderStat {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** A session folder's file names as listed once, and each file's stat, taken at most once (on first ask). */
export class FolderListing {
  private readonly stats = new Map<string, Promise<FileStat | undefined>>();

  /** `folder`: the folder's stat taken before it was listed (undefined when it did not exist). */
  constructor(readonly dir: string, readonly names: readonly string[], readonly folder: FolderStat | undefined) {}

  /** The file's size and time (undefined when it is gone), the same answer for every read sharing this listing. */
  stat(path: string): Promise<FileStat | undefined> {
    let stat = this.stats.get(path);
    if (!stat) {
      stat = fsp.stat(path).then(({ size, mtimeMs }) => ({ size, mtimeMs }), () => undefined);
      this.stats.set(path, stat);
    }
    return stat;
  }

  /** Whether the folder, stated again now, is as it was when listed. */
  unchanged(now: FolderStat | undefined): boolean {
    const then = this.folder;
    return then === undefined || now === undefined ? then === now : then.mtimeMs === now.mtimeMs && then.ctimeMs === now.ctimeMs && then.ino === now.ino;
  }
}

interface Burst {
  /** Reads of the folder's session running now. */
  reads: number;
  listing?: Promise<FolderListing>;
  /** The check, a turn after the last read ended, that ends the burst if no read began meanwhile. */
  ending?: NodeJS.Immediate;
}

/**
 * Listings of session folders, shared by the reads of one burst: opening a session runs a dozen
 * reads back to back and side by side (the session, its last request, snapshot, pins, messages,
 * the chat's lists), and each listed the folder and stated every segment. While reads of a
 * session run (`during`), the first one lists the folder and states the segments it needs; each
 * read that follows states the folder alone and takes that listing while the folder is unchanged
 * (a file added, removed or replaced by a rename, as every file of the store is written, changes
 * the folder's time): a segment another window added is seen by the next read (one added within
 * the folder's clock tick, by the next burst). The
 * listing is dropped at once when this window writes or removes a file in the folder, and when a
 * read finds a listed file gone. A burst ends once a turn of the event loop passes with no read
 * running: the next read lists again, so a file changed in place (which leaves the folder's time
 * alone) or a change within the folder's clock tick is seen from the next burst on.
 */
export class FolderListings {
  private readonly bursts = new Map<string, Burst>();

  /** The listing of `dir`: the burst's when reads of it are running and it is unchanged, else a fresh one. */
  async listing(dir: string): Promise<FolderListing> {
    const burst = this.bursts.get(dir);
    if (!burst) return list(dir);
    const shared = burst.listing;
    if (!shared) return (burst.listing = list(dir));
    const [listing, now] = await Promise.all([shared, folderStat(dir)]);
    if (listing.unchanged(now)) return listing;
    if (burst.listing === shared) burst.listing = list(dir);
    return burst.listing ?? list(dir);
  }

  /** Runs a read of the folder `dir`, within the folder's burst. */
  async during<T>(dir: string, read: () => Promise<T>): Promise<T> {
    let burst = this.bursts.get(dir);
    if (!burst) {
      burst = { reads: 0 };
      this.bursts.set(dir, burst);
    }
    if (burst.ending) clearImmediate(burst.ending);
    burst.ending = undefined;
    burst.reads++;
    try {
      return await read();
    } finally {
      const ended = burst;
      if (--ended.reads === 0) {
        ended.ending = setImmediate(() => {
          if (ended.reads === 0 && this.bursts.get(dir) === ended) this.bursts.delete(dir);
        });
      }
    }
  }

  /** Drops the shared listing of `dir` (its files changed): the reads that follow list it again. */
  forget(dir: string): void {
    const burst = this.bursts.get(dir);
    if (burst) burst.listing = undefined;
  }

  /** Drops the shared listing of the folder holding `path`. */
  forgetFolderOf(path: string): void {
    this.forget(dirname(path));
  }
}

function folderStat(dir: string): Promise<FolderStat | undefined> {
  return fsp.stat(dir).then(({ mtimeMs, ctimeMs, ino }) => ({ mtimeMs, ctimeMs, ino }), () => undefined);
}

/** The folder's stat is taken first: a file added while it is listed makes the next check list again. */
async function list(dir: string): Promise<FolderListing> {
  const folder = await folderStat(dir);
  return new FolderListing(dir, await fsp.readdir(dir).catch(() => [] as string[]), folder);
}
