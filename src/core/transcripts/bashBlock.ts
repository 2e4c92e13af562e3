/**
 * Finds the first ```bash (or ```sh) fenced block in a message, in one linear pass.
 * A regex with a lazy body and optional newline before the closing fence backtracks
 * quadratically on an unclosed fence followed by many newlines; this scanner does not.
 */
export interface BashBlock {
  /** The command inside the fence, without the newline before the closing fence. */
  command: string;
  /** Where the opening fence starts and where the closing fence ends. */
  start: number;
  end: number;
}

const FENCE = '```';

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}

/** Index of the first newline after the fence's language word, or -1 if it is not bash/sh. */
function bodyStart(text: string, afterFence: number): number {
  let i = afterFence;
  if (text.startsWith('bash', i)) i += 4;
  else if (text.startsWith('sh', i)) i += 2;
  else return -1;
  // Whitespace up to and including the LAST newline of the run (the old pattern's `\s*\n`).
  let lastNewline = -1;
  while (i < text.length && isSpace(text[i])) {
    if (text[i] === '\n') lastNewline = i;
    i++;
  }
  return lastNewline;
}

export function findBashBlock(text: string): BashBlock | undefined {
  let from = 0;
  for (;;) {
    const start = text.indexOf(FENCE, from);
    if (start < 0) return undefined;
    const newline = bodyStart(text, start + FENCE.length);
    if (newline >= 0) {
      const close = text.indexOf(FENCE, newline + 1);
      if (close < 0) return undefined;
      let bodyEnd = close;
      if (bodyEnd > newline + 1 && text[bodyEnd - 1] === '\n') bodyEnd--;
      return { command: text.slice(newline + 1, bodyEnd), start, end: close + FENCE.length };
    }
    from = start + 1;
  }
}
