import { basename } from 'path';
import { importTranscript } from '../../core/transcripts/detect';
import { TranscriptError, type ImportedTranscript } from '../../core/transcripts/types';
import { readRegularFile } from '../regularFile';

export const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

/**
 * The bytes of a transcript file. Only regular files are read: a pipe would hang and a device such
 * as /dev/zero never ends. The 64 MiB cap is enforced while reading, not only from the size the
 * file claims, and the open does not block on a pipe.
 */
export function readTranscriptBytes(path: string, maxBytes = MAX_TRANSCRIPT_BYTES): Uint8Array {
  const file = basename(path);
  let read;
  try {
    read = readRegularFile(path, { maxBytes });
  } catch (error) {
    throw new TranscriptError(file, `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  switch (read.kind) {
    case 'bytes':
      return read.bytes;
    case 'absent':
      throw new TranscriptError(file, 'cannot read the file (ENOENT)');
    case 'not regular':
      throw new TranscriptError(file, `${read.what}, not a regular file; only transcript files can be opened`);
    case 'too large':
      throw new TranscriptError(file, `the file is ${read.size === undefined ? `over ${maxBytes / 2 ** 20} MiB` : `${(read.size / 2 ** 20).toFixed(1)} MiB`}; the limit is ${maxBytes / 2 ** 20} MiB`);
  }
}

/** Reads and imports a file: regular files only, refusing files over 64 MiB with a clear error. */
export function importTranscriptFile(path: string): ImportedTranscript {
  return importTranscript(path, readTranscriptBytes(path));
}
