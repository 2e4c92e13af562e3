import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'fs';

/** What reading a path as a regular file found. `size` of a file too large: its size, or undefined when it grew past the cap while read. */
export type RegularFileRead =
  | { kind: 'bytes'; bytes: Buffer }
  | { kind: 'absent' }
  | { kind: 'not regular'; what: string }
  | { kind: 'too large'; size?: number };

function kindOf(stat: Stats): string {
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
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    if (options.noFollow && (code === 'ELOOP' || code === 'EMLINK')) return { kind: 'not regular', what: 'a symbolic link' };
    if (code === 'ENXIO') return { kind: 'not regular', what: 'a socket or a pipe with no writer' };
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'not regular', what: kindOf(stat) };
    if (stat.size > options.maxBytes) return { kind: 'too large', size: stat.size };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, options.maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > options.maxBytes) return { kind: 'too large' }; // it grew, or claimed a smaller size
      chunks.push(chunk.subarray(0, n));
    }
    return { kind: 'bytes', bytes: Buffer.concat(chunks, total) };
  } finally {
    closeSync(fd);
  }
}
