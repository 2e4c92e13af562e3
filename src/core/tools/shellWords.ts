/**
 * Characters a word may hold outside quotes: none of them means anything to sh, bash, dash or zsh
 * in a plain command word (no expansion, quoting, globbing, tilde, brace, history, comment,
 * redirection or control operator). Anything else makes the line one the matcher cannot prove inert.
 */
const PLAIN = /^[A-Za-z0-9_\-./:=,+@%]$/;
/** Printable ASCII and the space: what a quoted string may hold (no control, invisible or reordering characters). */
const QUOTED = /^[\x20-\x7E]$/;
/** Inside double quotes sh still expands `$` and backticks and reads `\`; bash may expand `!`. */
const ACTIVE_IN_DOUBLE_QUOTES = new Set(['$', '`', '\\', '!']);

/**
 * Splits a command line into the words /bin/sh would pass to the program, when it can prove the
 * shell does nothing else with the line: plain words, single-quoted strings, and double-quoted
 * strings with nothing the shell expands inside. Returns undefined for anything else (expansions,
 * escapes, globs, `~`, redirections, pipes, `;`, `&`, newlines, unbalanced quotes, non-ASCII
 * text), so the caller asks the user instead of guessing.
 */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) return undefined;
      const inner = line.slice(i + 1, end);
      for (const q of inner) if (!QUOTED.test(q) || (c === '"' && ACTIVE_IN_DOUBLE_QUOTES.has(q))) return undefined;
      word = (word ?? '') + inner;
      i = end;
    } else if (PLAIN.test(c)) {
      word = (word ?? '') + c;
    } else {
      return undefined;
    }
  }
  if (word !== undefined) words.push(word);
  return words.length ? words : undefined;
}

/** A word shown on a card so that it reads as the shell would split it. */
export function quoteWord(word: string): string {
  if (word !== '' && [...word].every((c) => PLAIN.test(c))) return word;
  return word.includes("'") ? `"${word}"` : `'${word}'`;
}
