/** What a folder's listing holds and reports: its files, the changes between two refreshes, its bounds. */

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

