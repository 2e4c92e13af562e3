import { lstatSync, readdirSync, statSync, type Stats } from 'fs';
import { join, sep } from 'path';
import type { FolderListing, ListedFile } from '../../core/ports/checkpointStore';
import { ignoredNames } from './ignoredNames';
import { EventLoopSlices } from './eventLoopSlices';
import { timeMayHideChange } from './modificationTimes';

export interface ListingLimits {
  maxFiles: number;
  listBudgetMs: number;
}

/** What listings cost in file-system calls, counted so tests can tell the work done without timing it. */
export interface ListingWork {
  directoriesRead: number;
  entriesStated: number;
}

/** A folder's names as last read, and what tells whether they can have changed since: its inode and time. */
interface KeptDirectory {
  ino: number;
  mtimeMs: number;
  /** False when the folder's time was too recent to show a later change in the same clock step: read it again. */
  trusted: boolean;
  files: string[];
  directories: string[];
}

/**
 * Lists workspace folders for checkpoints, keeping each folder's names between listings: a folder
 * whose inode and modification time did not move since its names were read (a name added, removed
 * or renamed moves it) is not read again, only stated. Every file is stated on every listing: its
 * size and time are what tell a change. The calls are synchronous, a slice at a time, so a listing
 * costs little more than the system calls and never holds the event loop for long.
 */
export class WorkspaceLister {
  private readonly kept = new Map<string, KeptDirectory>();
  readonly work: ListingWork = { directoriesRead: 0, entriesStated: 0 };

  /** `now`: the clock a file's or folder's time is compared with, to tell one too recent to show a later change. */
  constructor(private readonly limits: ListingLimits, private readonly slices = new EventLoopSlices(), private readonly now: () => number = Date.now) {}

  async list(folders: readonly string[]): Promise<FolderListing> {
    const deadline = Date.now() + this.limits.listBudgetMs;
    const files: ListedFile[] = [];
    for (const folder of folders) {
      const skip = await ignoredNames(folder);
      const pending: Array<{ absolute: string; relative: string }> = [{ absolute: folder, relative: '' }];
      while (pending.length) {
        await this.slices.turnIfDue();
        if (Date.now() > deadline) return { files, complete: false, note: `listing the workspace took longer than ${this.limits.listBudgetMs} ms` };
        const dir = pending.pop()!;
        // A workspace folder opened through a link is listed (the link is the user's own path); links inside it are not followed.
        const names = this.names(dir.absolute, dir.relative === '');
        if (!names) continue;
        const prefix = dir.relative ? `${dir.relative}/` : '';
        for (const name of names.directories) if (!skip.has(name)) pending.push({ absolute: join(dir.absolute, name), relative: prefix + name });
        for (const name of names.files) {
          if (skip.has(name)) continue;
          const absolute = dir.absolute + sep + name;
          const seenAt = this.now();
          const stat = this.stat(absolute);
          // Links and special files are not listed.
          if (!stat?.isFile()) continue;
          const file: ListedFile = { absolute, relative: prefix + name, size: stat.size, mtimeMs: stat.mtimeMs };
          if (timeMayHideChange(stat.mtimeMs, seenAt)) file.timeUnsure = true;
          files.push(file);
          if (files.length > this.limits.maxFiles) return { files: files.slice(0, this.limits.maxFiles), complete: false, note: `the workspace has more than ${this.limits.maxFiles.toLocaleString('en-US')} files` };
        }
      }
    }
    return { files, complete: true };
  }

  /** The folder's file and folder names: kept ones when the folder did not move, else read now. */
  private names(absolute: string, isRoot = false): KeptDirectory | undefined {
    const seenAt = this.now();
    const stat = this.stat(absolute, isRoot);
    if (!stat?.isDirectory()) {
      this.kept.delete(absolute);
      return undefined;
    }
    const kept = this.kept.get(absolute);
    if (kept && kept.trusted && kept.ino === stat.ino && kept.mtimeMs === stat.mtimeMs) return kept;
    this.work.directoriesRead++;
    let entries;
    try {
      entries = readdirSync(absolute, { withFileTypes: true });
    } catch {
      this.kept.delete(absolute);
      return undefined;
    }
    const read: KeptDirectory = { ino: stat.ino, mtimeMs: stat.mtimeMs, trusted: !timeMayHideChange(stat.mtimeMs, seenAt), files: [], directories: [] };
    for (const entry of entries) {
      if (entry.isDirectory()) read.directories.push(entry.name);
      else if (entry.isFile()) read.files.push(entry.name);
    }
    this.kept.set(absolute, read);
    return read;
  }

  private stat(absolute: string, followLink = false): Stats | undefined {
    this.work.entriesStated++;
    try {
      return (followLink ? statSync : lstatSync)(absolute, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
  }
}
