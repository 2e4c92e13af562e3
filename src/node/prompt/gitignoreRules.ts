/**
 * Whether a folder is ignored by git's ignore rules (gitignore(5)), for deciding which folders are
 * the project's own. One rule per line: blank lines and `#` comments skipped, `!` re-includes, a
 * trailing `/` matches folders only, a `/` at the start or in the middle anchors the pattern to the
 * folder of the file it is in (otherwise it matches a name at any depth), `*` and `?` stay within
 * a name, `[…]` is a class, and `**` spans folders (`**\/x`, `x/**`, `a/**\/b`). The last rule that
 * matches decides, rules of a deeper file after those above it; a folder inside an ignored folder
 * is ignored whatever later rules say (git does not look inside it).
 */
export interface IgnoreRule {
  /** The folder of the file the rule is in, relative to the root (`''` for the root), `/`-separated. */
  base: string;
  negated: boolean;
  pattern: RegExp;
}

function globToRegExp(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const before = i === 0 || glob[i - 1] === '/';
      const after = i + 2 === glob.length || glob[i + 2] === '/';
      if (before && after) {
        // `**/` at the start or after a slash: any folders, or none; a trailing `/**`: everything inside.
        if (i + 2 === glob.length) out += '.*';
        else {
          out += '(?:.*/)?';
          i++;
        }
        i++;
        continue;
      }
    }
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < glob.length) out += glob[++i].replace(/[.+?^${}()|[\]\\*]/g, '\\$&');
    else out += c.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

/** The rules of one ignore file whose folder is `base` (relative to the root). */
export function parseIgnoreFile(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, '');
    if (!line || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (negated) line = line.slice(1);
    if (line.startsWith('\\')) line = line.slice(1);
    // Only folders are asked about here, so a folder-only rule (`build/`) applies like any other.
    line = line.replace(/\/+$/, '');
    if (!line) continue;
    const anchored = line.includes('/');
    line = line.replace(/^\//, '');
    const body = globToRegExp(line);
    rules.push({ base, negated, pattern: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`) });
  }
  return rules;
}

/** Whether the folder at `path` (relative to the root, `/`-separated) is ignored by `rules` (in order). */
export function ignoredFolder(path: string, rules: readonly IgnoreRule[]): boolean {
  const parts = path.split('/').filter(Boolean);
  for (let n = 1; n <= parts.length; n++) {
    const folder = parts.slice(0, n).join('/');
    let ignored = false;
    for (const rule of rules) {
      if (rule.base && !folder.startsWith(`${rule.base}/`)) continue;
      const rel = rule.base ? folder.slice(rule.base.length + 1) : folder;
      // `x/*` and `x/**` ignore everything inside x, and so x's own files: git reports `x/` ignored.
      if (rule.pattern.test(rel) || rule.pattern.test(`${rel}/`)) ignored = !rule.negated;
    }
    if (ignored) return true;
  }
  return false;
}
