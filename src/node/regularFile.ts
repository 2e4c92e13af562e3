import { closeSync, constants, fstatSync, openSync, promises as fsp, readSync, type Stats } from 'fs';

/** What reading a path as a regular file found. `size` of a file too large: its size, or undefined when it grew past the cap while read. */
export type RegularFileRead =
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'absent' }
  | { kind: 'not regular'; what: string }
  | { kind: 'too large'; size?: number };

/** A path opened as a regular file, or why it was not. */
export type RegularFileOpen =
  | { kind: 'open'; handle: fsp.FileHandle; stat: Stats }
  | { kind: 'absent' }
  | { kind: 'not regular'; what: string };

/** Open flags that never wait: O_NONBLOCK makes opening a pipe with no writer (or reader) return at once. */
const NEVER_WAIT = constants.O_NONBLOCK ?? 0;

/** Where what a file holds past the size it claimed is read (reads are synchronous: one buffer serves them all). */
const GREW = Buffer.allocUnsafe(64 * 1024);

/** What a path that is not a regular file is, in words (for the refusal). */
export function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Reads a regular file, and only one: the open never waits on a pipe (O_NONBLOCK), a device such
 * as /dev/zero is refused rather than read for ever, and `maxBytes` holds while reading, not only
 * from the size the file claims. `noFollow`: a link in the last place is refused, not followed (a
 * file replaced by a link since it was listed must not bring its target along). Other failures to
 * open (permissions, a full table of open files) are thrown.
 */
export function readRegularFile(path: string, options: { maxBytes: number; noFollow?: boolean }): RegularFileRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NEVER_WAIT | (options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0));
  } catch (error) {
    const refusal = openRefusal(error, Boolean(options.noFollow));
    if (refusal) return refusal;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'not regular', what: kindOf(stat) };
    if (stat.size > options.maxBytes) return { kind: 'too large', size: stat.size };
    // One buffer of the size it claims (small ones carved from Node's pool): reading thousands of small files is
    // mostly allocating, so nothing larger is allocated and nothing copied unless the file grew while read.
    const bytes = Buffer.allocUnsafe(stat.size);
    let total = 0;
    while (total < bytes.length) {
      const n = readSync(fd, bytes, total, bytes.length - total, null);
      if (n === 0) return { kind: 'bytes', bytes: bytes.subarray(0, total) }; // it shrank
      total += n;
    }
    const chunks = [bytes];
    for (;;) {
      const n = readSync(fd, GREW, 0, GREW.length, null);
      if (n === 0) break;
      total += n;
      if (total > options.maxBytes) return { kind: 'too large' }; // it grew past the cap while read
      chunks.push(Buffer.from(GREW.subarray(0, n)));
    }
    return { kind: 'bytes', bytes: chunks.length === 1 ? bytes : Buffer.concat(chunks, total) };
  } finally {
    closeSync(fd);
  }
}

/** The answer for an open that failed because of what the path is; undefined for other failures. */
function openRefusal(error: unknown, noFollow: boolean): { kind: 'absent' } | { kind: 'not regular'; what: string } | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
  if (noFollow && (code === 'ELOOP' || code === 'EMLINK')) return { kind: 'not regular', what: 'a symbolic link' };
  if (code === 'ENXIO') return { kind: 'not regular', what: 'a socket or a pipe with no reader or writer' };
  if (code === 'EISDIR') return { kind: 'not regular', what: 'a folder' };
  return undefined;
}

/**
 * Opens a path as a regular file without ever waiting: a named pipe, a socket or a device is
 * refused from the opened handle's own stat, so nothing waits on it (a blocked open or read holds
 * one of the few threads every file operation of the process shares). `flags`: the access
 * (O_RDONLY by default; O_WRONLY | O_CREAT to write); `noFollow` refuses a link in the last place.
 */
export async function openRegularFile(path: string, options: { noFollow?: boolean; flags?: number; mode?: number } = {}): Promise<RegularFileOpen> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(path, (options.flags ?? constants.O_RDONLY) | NEVER_WAIT | (options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0), options.mode);
  } catch (error) {
    const refusal = openRefusal(error, Boolean(options.noFollow));
    if (refusal) return refusal;
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (stat.isFile()) return { kind: 'open', handle, stat };
    await handle.close();
    return { kind: 'not regular', what: kindOf(stat) };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Reads at most `maxBytes` from an opened regular file, from its start; `total`: how many bytes it
 * has (its size, or more when it grew while read).
 */
export async function readOpened(handle: fsp.FileHandle, size: number, maxBytes: number): Promise<{ bytes: Buffer; total: number }> {
  const buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 0), maxBytes));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  // The file may have grown since its stat: one byte more says whether there is more than was read.
  let total = Math.max(size, filled);
  if (filled === buffer.length && total <= filled) {
    const probe = Buffer.allocUnsafe(1);
    if ((await handle.read(probe, 0, 1, filled)).bytesRead > 0) total = filled + 1;
  }
  return { bytes: buffer.subarray(0, filled), total };
}
