import { promises as fsp, type Stats } from 'fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'path';
import type { ResolvedPath } from '../../core/ports/workspace';
import { ConfinedPathError, writeWithin, type ConfinedWriteOptions } from '../confinedFiles';
import { isInside } from '../insideFolder';
import { openRegularFile } from '../regularFile';
import { hardLinkedWriteRefusal } from '../../core/tools/hardLinks';
import { ToolInputError, type WorkspaceInfo } from '../../core/tools/types';

export type { ResolvedPath };

const MAX_LINK_HOPS = 40;

class LinkLoopError extends Error {}

/**
 * The real path of `path`; when it does not exist, where writing it would land: the real path of
 * its nearest existing ancestor joined with the rest. A symbolic link on the way that dangles is
 * followed to its target (resolved against the link's own folder) like the kernel would when
 * creating the file, so a link to a missing file outside the workspace cannot pass for a new file
 * inside it.
 */
async function realPathOrParent(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  let hops = 0;
  for (;;) {
    try {
      return join(await fsp.realpath(current), ...[...missing].reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new LinkLoopError();
      const target = await fsp.readlink(current).catch(() => undefined);
      if (target !== undefined) {
        // `current` exists as a link, so its folder exists and has a real path.
        if (++hops > MAX_LINK_HOPS) throw new LinkLoopError();
        current = resolve(await fsp.realpath(dirname(current)), target);
        continue;
      }
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves a path the model gave to a file inside the workspace folders. Relative paths resolve
 * against the first folder, or against the folder whose name is their first segment (multi-root).
 * `..` escapes, absolute paths outside every folder and symlinks that lead out are refused.
 */
export async function resolveInWorkspace(input: string, workspace: WorkspaceInfo, options: { mustExist: boolean }): Promise<ResolvedPath> {
  if (typeof input !== 'string' || input.trim() === '') throw new ToolInputError('a path is required');
  if (input.includes('\0')) throw new ToolInputError(`the path "${input.replace(/\0/g, '\\0')}" contains a NUL byte`);
  if (workspace.folders.length === 0) throw new ToolInputError('no workspace folder is open');
  const folders = await Promise.all(workspace.folders.map(async (f) => ({ given: resolve(f), real: await fsp.realpath(f).catch(() => resolve(f)) })));
  let candidate: string;
  if (isAbsolute(input)) {
    candidate = resolve(input);
  } else {
    const [first, ...rest] = input.split(/[\\/]/);
    const named = folders.length > 1 ? folders.find((f) => basename(f.given) === first) : undefined;
    candidate = named ? resolve(named.given, ...rest) : resolve(folders[0].given, input);
  }
  const home = folders.find((f) => isInside(f.given, candidate));
  if (!home) throw new ToolInputError(`the path "${input}" is outside the workspace folders`);
  let real: string;
  try {
    real = await realPathOrParent(candidate);
  } catch (error) {
    if (error instanceof LinkLoopError) throw new ToolInputError(`the path "${input}" is a symbolic link loop`);
    throw error;
  }
  const realHome = folders.find((f) => isInside(f.real, real));
  if (!realHome) throw new ToolInputError(`the path "${input}" leads outside the workspace folders through a symbolic link`);
  if (options.mustExist) {
    try {
      await fsp.stat(real);
    } catch {
      throw new ToolInputError(`"${input}" does not exist`);
    }
  }
  return { absolute: real, folder: realHome.real, relative: relative(home.given, candidate).split(sep).join('/') || '.' };
}

/**
 * Checks that the path the model gave still resolves to `resolved` (links may have changed while
 * the user was reading the diff); throws ToolInputError saying what changed otherwise.
 */
export async function confirmResolved(input: string, workspace: WorkspaceInfo, resolved: ResolvedPath): Promise<void> {
  let again: ResolvedPath;
  try {
    again = await resolveInWorkspace(input, workspace, { mustExist: false });
  } catch (error) {
    if (!(error instanceof ToolInputError)) throw error;
    throw new ToolInputError(`${resolved.relative} changed while waiting for approval (it now ${error.message.replace(/^the path "[^"]*" /, '')}); nothing was written`);
  }
  if (again.absolute !== resolved.absolute) throw new ToolInputError(`${resolved.relative} changed while waiting for approval (it now leads to ${again.absolute}); nothing was written`);
}

/**
 * Writes `data` to a file `resolveInWorkspace(input, …, { mustExist: false })` returned, after the
 * user approved: checks again that the path still resolves to the same place (links may have
 * changed while the user was reading the diff), then writes through folders held open from the
 * workspace folder down (confinedFiles.ts), so a folder or the file swapped for a link at the last
 * moment makes the write fail instead of being followed. The opened file is truncated only once it
 * is known to be a regular file with a single name: a hard link (another name, perhaps outside the
 * workspace) is refused with its contents untouched, a named pipe without waiting on it.
 * `last.check`: a last refusal on the opened file (its text changed since it was read, say).
 */
export async function writeResolved(
  input: string,
  workspace: WorkspaceInfo,
  resolved: ResolvedPath,
  data: string,
  last: Pick<ConfinedWriteOptions, 'check' | 'mustExist'> = {},
): Promise<{ created: boolean }> {
  await confirmResolved(input, workspace, resolved);
  try {
    return await writeWithin(resolved.folder, relative(resolved.folder, resolved.absolute), data, {
      createFolders: true,
      mustExist: last.mustExist,
      shown: resolved.relative,
      check: async (file) => (file.stat.nlink > 1 ? hardLinkedWriteRefusal(resolved.relative, file.stat.nlink) : last.check?.(file)),
    });
  } catch (error) {
    if (error instanceof ConfinedPathError) throw new ToolInputError(error.message);
    throw error;
  }
}

/**
 * Opens a file `resolveInWorkspace` returned for reading, refusing anything swapped in since the
 * check: O_NOFOLLOW refuses a link in the last place, a pipe or a device is refused without waiting
 * on it, and the opened handle must be the very file (same device and inode) the path resolves to
 * now, inside the workspace, so a parent folder swapped for a link to elsewhere cannot escape either.
 */
export async function openResolvedForRead(resolved: ResolvedPath): Promise<{ handle: fsp.FileHandle; stat: Stats }> {
  const changed = (how: string) => new ToolInputError(`${resolved.relative} ${how} while it was being checked; not read`);
  const opened = await openRegularFile(resolved.absolute, { noFollow: true });
  if (opened.kind === 'absent') throw new ToolInputError(`"${resolved.relative}" does not exist`);
  if (opened.kind === 'not regular') {
    if (opened.what === 'a symbolic link') throw changed('became a symbolic link');
    throw new ToolInputError(`${resolved.relative} is ${opened.what}, not a regular file; not read`);
  }
  const { handle, stat } = opened;
  try {
    const real = await fsp.realpath(resolved.absolute).catch(() => undefined);
    if (!real || !isInside(resolved.folder, real)) throw changed('moved out of the workspace');
    const now = await fsp.stat(real).catch(() => undefined);
    if (!now || now.dev !== stat.dev || now.ino !== stat.ino) throw changed('was replaced (a link on its path changed)');
    return { handle, stat };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
