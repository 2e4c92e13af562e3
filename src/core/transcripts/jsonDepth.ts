import { TranscriptError } from './types';

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
