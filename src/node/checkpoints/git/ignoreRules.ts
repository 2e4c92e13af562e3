import { sep } from 'path';
import { type GitPattern, matchesGitPattern, parseGitPattern } from './gitPatterns';

/** Folders never recorded, at any depth: version control's own and installed packages. */
export const ALWAYS_SKIPPED = new Set(['.git', '.hg', '.svn', 'node_modules']);

interface Ranked {
  /** Its line's place in the file: the last matching line decides. */
  rank: number;
  negated: boolean;
  directoryOnly: boolean;
}

const WILDCARD = /[*?[\\]/;

/**
 * One pattern file's lines, sorted so that a path costs a few lookups rather than a regex per
 * line: plain names and plain paths in maps, `*suffix` names in a list compared by their ends,
 * the rest as regexes. Which line matched last is what git's rules need.
 */
class PatternFile {
  private readonly names = new Map<string, Ranked[]>();
  private readonly paths = new Map<string, Ranked[]>();
  private readonly suffixes: Array<Ranked & { suffix: string }> = [];
  private readonly others: Array<Ranked & { pattern: GitPattern }> = [];
  readonly size: number;
  /** Whether any line is matched against the path (not the name alone): only then is the path made. */
  readonly needsPath: boolean;

  constructor(text: string) {
    let rank = 0;
    for (const line of text.split('\n')) {
      const pattern = parseGitPattern(line);
      if (!pattern) continue;
      const ranked: Ranked = { rank: rank++, negated: pattern.negated, directoryOnly: pattern.directoryOnly };
      const { glob } = pattern;
      if (!WILDCARD.test(glob)) push(pattern.anchored ? this.paths : this.names, glob, ranked);
      else if (!pattern.anchored && glob.startsWith('*') && !WILDCARD.test(glob.slice(1)) && glob.length > 1) this.suffixes.push({ ...ranked, suffix: glob.slice(1) });
      else this.others.push({ ...ranked, pattern });
    }
    this.size = rank;
    this.needsPath = this.paths.size > 0 || this.others.some((o) => o.pattern.anchored);
  }

  /** The last line matching `path` (relative to this file's folder, `/`-separated; `name` its last part). */
  lastMatch(path: string, name: string, isDirectory: boolean): Ranked | undefined {
    let best: Ranked | undefined;
    const consider = (r: Ranked) => {
      if ((!r.directoryOnly || isDirectory) && (!best || r.rank > best.rank)) best = r;
    };
    for (const r of this.names.get(name) ?? []) consider(r);
    for (const r of this.paths.get(path) ?? []) consider(r);
    for (const r of this.suffixes) if ((!best || r.rank > best.rank) && name.endsWith(r.suffix)) consider(r);
    for (const r of this.others) if ((!best || r.rank > best.rank) && matchesGitPattern(r.pattern, path, isDirectory)) consider(r);
    return best;
  }
}

function push(map: Map<string, Ranked[]>, key: string, ranked: Ranked): void {
  const list = map.get(key);
  if (list) list.push(ranked);
  else map.set(key, [ranked]);
}

const toSlashes = sep === '/' ? (p: string) => p : (p: string) => p.split(sep).join('/');

/**
 * The ignore rules in force in one folder, as git applies them: the folder's own .gitignore, then
 * each parent's up to the repository's root, then the repository's `info/exclude`. The first of
 * those files with a line matching a path decides, by the last such line (a `!` line un-ignores);
 * a folder ignored is not entered, so nothing under it can be un-ignored.
 */
export class IgnoreRules {
  private constructor(private readonly parent: IgnoreRules | undefined, private readonly base: string, private readonly file: PatternFile | undefined) {}

  /** No rules but the folders always skipped. */
  static readonly none = new IgnoreRules(undefined, '', undefined);

  /** The rules of a pattern file in `folder` (absolute), on top of these. */
  with(folder: string, text: string): IgnoreRules {
    const file = new PatternFile(text);
    return file.size ? new IgnoreRules(this, folder, file) : this;
  }

  /** Whether the entry at `absolute`, whose last part is `name`, is skipped. */
  ignores(absolute: string, name: string, isDirectory: boolean): boolean {
    if (ALWAYS_SKIPPED.has(name) && (isDirectory || name === '.git')) return true;
    for (let rules: IgnoreRules | undefined = this; rules; rules = rules.parent) {
      if (!rules.file) continue;
      const match = rules.file.lastMatch(rules.file.needsPath ? toSlashes(absolute.slice(rules.base.length + 1)) : name, name, isDirectory);
      if (match) return !match.negated;
    }
    return false;
  }
}
