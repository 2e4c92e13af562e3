import { constants, existsSync, promises as fsp, type Stats } from 'fs';
import { join, relative, sep } from 'path';
import { isInside } from './insideFolder';
import { openRegularFile } from './regularFile';

/**
 * Writing and deleting files inside a folder so that nothing on the way can lead the write outside,
 * whatever happens to the path while it is written: the folders are opened one by one, each inside
 * the one held before and never through a symbolic link, and the file is opened inside the last one
 * held. A folder swapped for a link to elsewhere at any moment is refused when it is reached (or,
 * if it was reached before the swap, the write lands in the folder that was held, inside).
 *
 * On Linux a held folder's entries are reached through /proc/self/fd/<fd>/<name>, which the kernel
 * resolves from the open folder itself (what openat does); elsewhere each folder is checked by
 * path just before the file is opened and the opened file is checked against the path before any
 * byte is written.
 */

/** A write or delete refused because of what the path has become; the message says what and where. */
export class ConfinedPathError extends Error {}

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const THROUGH_HANDLES = process.platform === 'linux' && existsSync('/proc/self/fd');

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** The folder names below `root` and the file's name; refuses `..`, `.` and empty names. */
function splitRelative(relativePath: string): { folders: string[]; name: string } {
  const parts = relativePath.split(/[\\/]/).filter((p) => p !== '');
  if (parts.length === 0 || parts.some((p) => p === '..' || p === '.')) throw new ConfinedPathError(`"${relativePath}" is not a path inside the folder`);
  return { folders: parts.slice(0, -1), name: parts[parts.length - 1] };
}

/** A folder held open, and how to name an entry inside it. */
interface HeldFolder {
  handle?: fsp.FileHandle;
  /** The folder's path as given (root joined with the names walked). */
  path: string;
  entry(name: string): string;
  close(): Promise<void>;
}

function held(handle: fsp.FileHandle | undefined, path: string): HeldFolder {
  return {
    handle,
    path,
    entry: (name) => (handle && THROUGH_HANDLES ? `/proc/self/fd/${handle.fd}/${name}` : join(path, name)),
    close: async () => {
      await handle?.close().catch(() => undefined);
    },
  };
}

async function openFolder(path: string, noFollow: boolean): Promise<fsp.FileHandle | undefined> {
  if (!THROUGH_HANDLES) {
    if (!noFollow) return undefined;
    const stat = await fsp.lstat(path);
    if (stat.isSymbolicLink()) throw Object.assign(new Error('a symbolic link'), { code: 'ELOOP' });
    if (!stat.isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    return undefined;
  }
  return fsp.open(path, constants.O_RDONLY | O_DIRECTORY | (noFollow ? O_NOFOLLOW : 0));
}

/**
 * Holds `root`, then each folder of `folders` inside the one before; `create` makes missing ones.
 * Throws ConfinedPathError naming the first folder that is a link or not a folder, or is missing.
 */
async function holdFolders(root: string, folders: readonly string[], create: boolean, shown: string): Promise<HeldFolder> {
  let current = held(await openFolder(root, false), root);
  try {
    for (const [i, name] of folders.entries()) {
      const where = folders.slice(0, i + 1).join('/');
      const entry = current.entry(name);
      let handle: fsp.FileHandle | undefined;
      try {
        handle = await openFolder(entry, true);
      } catch (error) {
        if (code(error) !== 'ENOENT' || !create) throw await folderRefusal(error, entry, where, shown);
        await fsp.mkdir(entry).catch((e: unknown) => {
          if (code(e) !== 'EEXIST') throw e;
        });
        try {
          handle = await openFolder(entry, true);
        } catch (again) {
          throw await folderRefusal(again, entry, where, shown);
        }
      }
      await current.close();
      current = held(handle, join(current.path, name));
    }
    return current;
  } catch (error) {
    await current.close();
    throw error;
  }
}

async function folderRefusal(error: unknown, entry: string, where: string, shown: string): Promise<Error> {
  let c = code(error);
  // Opening a link as a folder without following it fails with ENOTDIR or ELOOP: say which it is.
  if (c === 'ENOTDIR' && (await fsp.lstat(entry).catch(() => undefined))?.isSymbolicLink()) c = 'ELOOP';
  if (c === 'ELOOP') return new ConfinedPathError(`${where} is a symbolic link, so writing ${shown} could land outside the workspace; nothing was written`);
  if (c === 'ENOTDIR') return new ConfinedPathError(`${where} is not a folder; nothing was written to ${shown}`);
  if (c === 'ENOENT') return new ConfinedPathError(`${where} does not exist; nothing was written to ${shown}`);
  return error instanceof Error ? error : new Error(String(error));
}

/** Where a held folder is now; refuses one moved out of `root` (or removed) since it was held. */
async function checkStillInside(folder: HeldFolder, root: string, shown: string): Promise<void> {
  const now = folder.handle && THROUGH_HANDLES ? await fsp.readlink(`/proc/self/fd/${folder.handle.fd}`).catch(() => undefined) : await fsp.realpath(folder.path).catch(() => undefined);
  const realRoot = await fsp.realpath(root).catch(() => root);
  if (!now || now.endsWith(' (deleted)') || !isInside(realRoot, now)) throw new ConfinedPathError(`the folder of ${shown} moved out of the workspace while it was written; nothing was written`);
}

/** What the file held for writing is, for the caller's last check before any byte is written. */
export interface HeldFile {
  /** Whether this write created it. */
  created: boolean;
  stat: Stats;
  /** Its bytes now (empty when just created). */
  read(): Promise<Buffer>;
}

export interface ConfinedWriteOptions {
  /** Make missing folders on the way (each one inside the one held before). */
  createFolders?: boolean;
  /** Refuse to create the file: it must be there (a write over a file that was read). */
  mustExist?: boolean;
  /** A refusal (thrown as ConfinedPathError) for the file as it is now, or undefined to write. */
  check?(file: HeldFile): Promise<string | undefined> | string | undefined;
  /** The path in messages (default `relativePath`). */
  shown?: string;
}

/**
 * Writes `data` as the whole content of `relativePath` inside `root`, creating it if needed. The
 * last name is never followed if it is a link, a pipe or a device is refused without waiting on it,
 * and the file is truncated only after `check` passed on the opened file.
 */
export async function writeWithin(root: string, relativePath: string, data: string | Uint8Array, options: ConfinedWriteOptions = {}): Promise<{ created: boolean }> {
  const shown = options.shown ?? relativePath;
  const { folders, name } = splitRelative(relativePath);
  const parent = await holdFolders(root, folders, options.createFolders ?? false, shown);
  try {
    const entry = parent.entry(name);
    let created = !options.mustExist;
    let opened = options.mustExist
      ? undefined
      : await openRegularFile(entry, { noFollow: true, flags: constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, mode: 0o666 }).catch((error: unknown) => {
          if (code(error) !== 'EEXIST') throw error;
          return undefined;
        });
    if (!opened) {
      created = false;
      opened = await openRegularFile(entry, { noFollow: true, flags: constants.O_RDWR });
    }
    if (opened.kind === 'absent') throw new ConfinedPathError(options.mustExist ? `${shown} was deleted; nothing was written` : `${shown} was removed while it was written; nothing was written`);
    if (opened.kind === 'not regular') throw new ConfinedPathError(`${shown} is ${opened.what}, not a regular file; nothing was written`);
    const { handle, stat } = opened;
    try {
      const refusal = await options.check?.({ created, stat, read: () => handle.readFile() });
      if (refusal) throw new ConfinedPathError(refusal);
      await checkStillInside(parent, root, shown);
      if (!THROUGH_HANDLES) await checkSameFile(handle, join(parent.path, name), shown);
      await handle.truncate(0);
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      // Written at explicit positions: the check's read moved the handle's own position.
      for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at, bytes.length - at, at)).bytesWritten;
      return { created };
    } finally {
      await handle.close();
    }
  } finally {
    await parent.close();
  }
}

/** Without folder handles: the opened file must be the one the path names now. */
async function checkSameFile(handle: fsp.FileHandle, path: string, shown: string): Promise<void> {
  const [opened, now] = await Promise.all([handle.stat(), fsp.lstat(path).catch(() => undefined)]);
  if (!now || now.dev !== opened.dev || now.ino !== opened.ino) throw new ConfinedPathError(`${shown} was replaced while it was written; nothing was written`);
}

/** Deletes the file `relativePath` inside `root`, never through a link on the way; false when it was not there. */
export async function deleteWithin(root: string, relativePath: string, shown = relativePath): Promise<boolean> {
  const { folders, name } = splitRelative(relativePath);
  let parent: HeldFolder;
  try {
    parent = await holdFolders(root, folders, false, shown);
  } catch (error) {
    if (error instanceof ConfinedPathError && / does not exist;/.test(error.message)) return false;
    throw error;
  }
  try {
    await checkStillInside(parent, root, shown);
    await fsp.unlink(parent.entry(name));
    return true;
  } catch (error) {
    if (code(error) === 'ENOENT') return false;
    throw error;
  } finally {
    await parent.close();
  }
}

/** The folder of `folders` (real paths) that holds `absolute`, and the path below it; undefined when none does. */
export function withinWhichFolder(folders: readonly string[], absolute: string): { root: string; relative: string } | undefined {
  for (const root of folders) {
    if (absolute === root || !isInside(root, absolute)) continue;
    return { root, relative: relative(root, absolute).split(sep).join('/') };
  }
  return undefined;
}

/** The real path of each folder (as given when it cannot be resolved). */
export async function realFolders(folders: readonly string[]): Promise<string[]> {
  return Promise.all(folders.map((f) => fsp.realpath(f).catch(() => f)));
}
