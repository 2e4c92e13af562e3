/**
 * Git's path patterns, as .gitignore and .gitattributes files write them (gitignore(5)): a pattern
 * with a slash before its end is matched against the path from the file's folder, one without
 * against the name alone at any depth; `*` and `?` never match a slash, `**` between slashes
 * matches any number of folders, `[...]` is a class (`!` or `^` negates it), `\` escapes. A
 * trailing slash makes it match folders only.
 */
export interface GitPattern {
  /** The line as written (for messages). */
  source: string;
  /** The glob left once `!`, a leading and a trailing slash are taken off. */
  glob: string;
  negated: boolean;
  directoryOnly: boolean;
  /** Matched against the path from the pattern file's folder; else against the last name. */
  anchored: boolean;
  regex: RegExp;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
};

const escapeRegex = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** A `[...]` class from `at` (the `[`): its regex and where it ends, or undefined when it is not closed (then `[` is literal). */
function characterClass(glob: string, at: number): { regex: string; end: number } | undefined {
  let i = at + 1;
  let negated = false;
  if (glob[i] === '!' || glob[i] === '^') {
    negated = true;
    i++;
  }
  let body = '';
  let first = true;
  while (i < glob.length) {
    const c = glob[i];
    // A class never matches a slash (git matches these patterns path-wise).
    if (c === ']' && !first) return { regex: negated ? `[^${body}/]` : `(?!/)[${body}]`, end: i };
    first = false;
    if (c === '[' && glob[i + 1] === ':') {
      const close = glob.indexOf(':]', i + 2);
      const name = close > 0 ? glob.slice(i + 2, close) : '';
      if (POSIX_CLASSES[name] !== undefined) {
        body += POSIX_CLASSES[name];
        i = close + 2;
        continue;
      }
    }
    if (c === '\\' && i + 1 < glob.length) {
      body += escapeRegex(glob[i + 1]);
      i += 2;
      continue;
    }
    if (glob[i + 1] === '-' && glob[i + 2] !== undefined && glob[i + 2] !== ']') {
      const to = glob[i + 2] === '\\' ? glob[i + 3] ?? '' : glob[i + 2];
      body += `${escapeRegex(c)}-${escapeRegex(to)}`;
      i += glob[i + 2] === '\\' ? 4 : 3;
      continue;
    }
    body += escapeRegex(c);
    i++;
  }
  return undefined;
}

/** The regex source of a glob matched against a whole path (`anchored`) or a single name. */
function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      if (i + 1 < glob.length) out += escapeRegex(glob[++i]);
      continue;
    }
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        let j = i;
        while (glob[j] === '*') j++;
        const atEnd = j === glob.length || glob[j] === '/';
        if (atStart && atEnd) {
          if (j === glob.length) out += '.*'; // `a/**`: everything inside; `**` alone: everything
          else {
            out += '(?:.*/)?'; // `**/` and `/**/`: any number of folders, none included
            j++;
          }
          i = j - 1;
          continue;
        }
        i = j - 1; // other runs of stars are one star
      }
      out += '[^/]*';
      continue;
    }
    if (c === '?') {
      out += '[^/]';
      continue;
    }
    if (c === '[') {
      const cls = characterClass(glob, i);
      if (cls) {
        out += cls.regex;
        i = cls.end;
        continue;
      }
    }
    out += escapeRegex(c);
  }
  return out;
}

/** Trailing spaces go, unless escaped with a backslash. */
function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end--;
  return line.slice(0, end);
}

/** One line of a pattern file as a pattern, or undefined for a blank line or a comment. `allowNegation`: false for .gitattributes. */
export function parseGitPattern(rawLine: string, allowNegation = true): GitPattern | undefined {
  let line = trimTrailingSpaces(rawLine.replace(/\r$/, ''));
  if (!line || line.startsWith('#')) return undefined;
  let negated = false;
  if (line.startsWith('!')) {
    if (!allowNegation) return undefined;
    negated = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
  let directoryOnly = false;
  if (line.endsWith('/') && !line.endsWith('\\/')) {
    directoryOnly = true;
    line = line.replace(/\/+$/, '');
  }
  if (!line) return undefined;
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  return { source: rawLine.trim(), glob: line, negated, directoryOnly, anchored, regex: new RegExp(`^${globToRegex(line)}$`) };
}

/** Whether `pattern` matches the entry at `path` (relative to the pattern file's folder, `/`-separated). */
export function matchesGitPattern(pattern: GitPattern, path: string, isDirectory: boolean): boolean {
  if (pattern.directoryOnly && !isDirectory) return false;
  return pattern.regex.test(pattern.anchored ? path : path.slice(path.lastIndexOf('/') + 1));
}
