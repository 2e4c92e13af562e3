// What a workspace folder's listing holds and reports (FolderListing keeps it between commands): its files, its folders, the changes between two refreshes, its bounds.
import type { IgnoreRules } from '../git/ignoreRules';

/** A file as the listing last saw it. Replaced, never changed, when it changes: a change keeps what it was. */
export interface ListedFile {
  absolute: string;
  relative: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Its time was so recent when seen that a change in the same clock step would leave it as it is. */
  timeUnsure: boolean;
}

/** A file that changed between two refreshes: `was` absent for a new file, `now` absent for a gone one. */
export interface FolderChange {
  absolute: string;
  relative: string;
  was?: ListedFile;
  now?: ListedFile;
  /** Its size and time did not move, but it may have changed within one clock step: its bytes tell. */
  unsure?: boolean;
}

export interface FolderRefresh {
  changes: FolderChange[];
  /** Folders this refresh did not list (a bound stopped it): changes in them are not known. */
  unlisted: ReadonlySet<string>;
  /** Why it stopped early, in words. */
  stoppedBecause?: string;
  /** Ignored entries (relative; folders end with `/`) that were added, removed or changed since the last refresh. */
  ignoredChanged: string[];
  /** How it was brought up to date. */
  how: 'walk' | 'watcher';
}

export interface FolderLimits {
  /** Past this many files a listing stops. */
  maxFiles: number;
  /** A walk (without a watcher) stops after this long. */
  listBudgetMs: number;
  /** The first walk of a watched folder stops after this long (then it is walked each time instead). */
  watchedListBudgetMs: number;
  /** Folders watched at most; past this the folder is walked each time. */
  maxWatchedFolders: number;
}

/** A folder's names as last read, what tells whether they can have changed, and the rules in force in it. */
export interface KeptFolder {
  relative: string;
  ino: number;
  mtimeMs: number;
  /** False when its time was too recent to show a later change in the same clock step, or a watcher event changed its names: read it again. */
  trusted: boolean;
  /** Every name read (what a later walk reuses while the folder does not move). */
  names: { files: string[]; folders: string[] };
  /** The names listed: not ignored, and regular files or folders. */
  files: string[];
  folders: string[];
  rules: IgnoreRules;
  /** Its .gitignore as read (its stat, the rules built on the parent's). */
  ignoreFile?: { stamp: string; parent: IgnoreRules; rules: IgnoreRules };
  attributesStamp?: string;
  /** The refresh that last listed it. */
  listedAt: number;
}

export interface IgnoredEntry {
  relative: string;
  stamp: string;
}
