import { promises as fsp } from 'fs';
import { isInside } from '../insideFolder';
import { openRegularFile, readOpened } from '../regularFile';

/**
 * A file's kind and size; undefined when nothing is there. Anything else throws, including a link
 * that leads nowhere (ENOENT on a symlink) and a link loop (ELOOP), so loaders can report them.
 */
export async function statIfPresent(path: string): Promise<{ isFile: boolean; size: number } | undefined> {
  try {
    const s = await fsp.stat(path);
    return { isFile: s.isFile(), size: s.size };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'ENOENT' || code === 'ENOTDIR') && !(await fsp.lstat(path).catch(() => undefined))?.isSymbolicLink()) return undefined;
    throw error;
  }
}

/**
 * At most the first `maxBytes` bytes of a regular file. Anything else (a named pipe swapped in
 * since the file was looked at) is refused without waiting on it: an error with code ENOTREG.
 */
export async function readPrefix(path: string, maxBytes: number): Promise<Uint8Array> {
  const opened = await openRegularFile(path);
  if (opened.kind === 'absent') throw Object.assign(new Error(`${path} is gone`), { code: 'ENOENT' });
  if (opened.kind === 'not regular') throw Object.assign(new Error(`${path} is ${opened.what}`), { code: 'ENOTREG' });
  try {
    return (await readOpened(opened.handle, maxBytes, maxBytes)).bytes;
  } finally {
    await opened.handle.close();
  }
}

/** The error code of a failed file operation, or its message when it has none. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** Why a file that is there could not be looked at (statIfPresent threw): shown next to the skipped file. */
export function statFailureReason(error: unknown): string {
  const code = errorCode(error);
  if (code === 'ELOOP') return 'symlink loop (ELOOP)';
  if (code === 'ENOENT' || code === 'ENOTDIR') return `dangling symbolic link (${code})`;
  return `cannot stat (${code})`;
}

/**
 * Why a workspace file may not be loaded because it (or a folder on the way to it) is a link that
 * resolves outside its workspace folder, e.g. AGENTS.md → ~/.aws/credentials; undefined when it
 * stays inside. Compares real paths, so a workspace folder that is itself reached through a link is fine.
 */
export async function outsideWorkspaceReason(realPath: (path: string) => Promise<string>, workspaceFolder: string, path: string): Promise<string | undefined> {
  const [folder, real] = await Promise.all([realPath(workspaceFolder), realPath(path)]);
  return isInside(folder, real) ? undefined : `a link that resolves outside the workspace folder (to ${real})`;
}
