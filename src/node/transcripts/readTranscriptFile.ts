import { basename } from 'path';
import { brotliDecompressSync, gunzipSync } from 'zlib';
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

/** Transcripts kept compressed (as the package keeps its demo run) are read through these. */
const DECOMPRESSORS: ReadonlyArray<[string, (bytes: Uint8Array, options: { maxOutputLength: number }) => Buffer]> = [
  ['.gz', gunzipSync],
  ['.br', brotliDecompressSync],
];

/**
 * Reads and imports a file: regular files only, refusing files over 64 MiB with a clear error. A
 * `.gz` or `.br` file is decompressed first (to at most the same 64 MiB) and imported under its
 * name without that ending.
 */
export function importTranscriptFile(path: string, maxBytes = MAX_TRANSCRIPT_BYTES): ImportedTranscript {
  const bytes = readTranscriptBytes(path, maxBytes);
  const compressed = DECOMPRESSORS.find(([ending]) => path.endsWith(ending));
  if (!compressed) return importTranscript(path, bytes);
  const [ending, decompress] = compressed;
  let text: Buffer;
  try {
    text = decompress(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TranscriptError(basename(path), code === 'ERR_BUFFER_TOO_LARGE' ? `decompressed, the file is over ${maxBytes / 2 ** 20} MiB; the limit is ${maxBytes / 2 ** 20} MiB` : `the compressed file is damaged (${(error as Error).message})`);
  }
  return importTranscript(path.slice(0, -ending.length), text);
}
