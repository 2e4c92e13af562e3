import { createHash } from 'crypto';
import { nextTurn } from '../../core/nextTurn';

/** Bytes hashed between turns of the event loop. */
const SLICE_BYTES = 4 * 1024 * 1024;

/**
 * The sha256 and line count of a stored result, for callers that did not measure it already;
 * hashed in slices so a large result never holds the thread for long.
 */
export async function measureContent(content: Uint8Array): Promise<{ sha256: string; lineCount: number }> {
  const hash = createHash('sha256');
  let newlines = 0;
  for (let start = 0; start < content.length; start += SLICE_BYTES) {
    const slice = content.subarray(start, start + SLICE_BYTES);
    hash.update(slice);
    for (let i = slice.indexOf(10); i !== -1; i = slice.indexOf(10, i + 1)) newlines++;
    if (start + SLICE_BYTES < content.length) await nextTurn();
  }
  const endsWithNewline = content.length > 0 && content[content.length - 1] === 10;
  return { sha256: hash.digest('hex'), lineCount: content.length === 0 ? 0 : newlines + (endsWithNewline ? 0 : 1) };
}
