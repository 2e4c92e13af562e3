/**
 * A command's arguments and what they fill in: `$ARGUMENTS` takes everything typed after the
 * name, `$1`…`$9` the words in order (a quoted group is one word, its quotes dropped). A body
 * that names neither gets the typed text appended after a blank line, so nothing typed is lost.
 */

/** The words of `text`: split on white space, `"a b"` and `'a b'` kept together. */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2] ?? m[3]);
  }
  return words;
}

/** Whether a body uses its arguments (`$ARGUMENTS` or `$1`…`$9`). */
export function usesArguments(body: string): boolean {
  return /\$ARGUMENTS\b|\$[1-9](?![0-9])/.test(body);
}

/** The body with its arguments filled in. A `$n` past the words given becomes empty. */
export function substituteArguments(body: string, typed: string): string {
  const all = typed.trim();
  if (!usesArguments(body)) return all ? `${body}\n\n${all}` : body;
  const words = splitArguments(all);
  return body.replace(/\$ARGUMENTS\b|\$([1-9])(?![0-9])/g, (match, n: string | undefined) => (n === undefined ? all : words[Number(n) - 1] ?? ''));
}
