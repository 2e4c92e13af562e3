import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'fs';
import { basename } from 'path';
import { TranscriptError } from '../../core/transcripts/types';

export const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return 'a folder';
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bytes of a transcript file. Only regular files are read: a pipe would hang and a device such
 * as /dev/zero never ends. The 64 MiB cap is enforced while reading, not only from the size the
 * file claims, and the open does not block on a pipe (O_NONBLOCK).
 */
export function readTranscriptBytes(path: string, maxBytes = MAX_TRANSCRIPT_BYTES): Uint8Array {
  const file = basename(path);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new TranscriptError(file, `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new TranscriptError(file, `${kindOf(stat)}, not a regular file; only transcript files can be opened`);
    const tooBig = (size: string) => new TranscriptError(file, `the file is ${size}; the limit is ${maxBytes / 2 ** 20} MiB`);
    if (stat.size > maxBytes) throw tooBig(`${(stat.size / 2 ** 20).toFixed(1)} MiB`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooBig(`over ${maxBytes / 2 ** 20} MiB`); // it grew, or claimed a smaller size
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** Deepest nesting a transcript may have; far beyond any real one, well within the stack. */
export const MAX_TRANSCRIPT_DEPTH = 1000;

/** Refuses JSON nested deeper than MAX_TRANSCRIPT_DEPTH with a clear error (one linear pass, strings skipped). */
export function checkJsonDepth(file: string, text: string, maxDepth = MAX_TRANSCRIPT_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw new TranscriptError(file, `the JSON is nested more than ${maxDepth} levels deep (at character ${i}); not a transcript Tally can import`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}
