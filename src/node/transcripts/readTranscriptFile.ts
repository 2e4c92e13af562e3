import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'fs';
import { basename } from 'path';
import { importTranscript } from '../../core/transcripts/detect';
import { TranscriptError, type ImportedTranscript } from '../../core/transcripts/types';

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

/** Reads and imports a file: regular files only, refusing files over 64 MiB with a clear error. */
export function importTranscriptFile(path: string): ImportedTranscript {
  return importTranscript(path, readTranscriptBytes(path));
}
