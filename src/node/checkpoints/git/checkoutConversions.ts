import { sep } from 'path';
import { type GitPattern, matchesGitPattern, parseGitPattern } from './gitPatterns';

/**
 * Attributes that make a checked-out file's bytes differ from its blob: line endings turned to
 * CRLF, `$Id$` expanded, a filter program, another text encoding. (Turning line endings to LF
 * on checkout, the default on Linux and macOS, changes nothing.)
 */
function convertsOnCheckout(attribute: string, macros: ReadonlySet<string>): boolean {
  return attribute === 'ident' || attribute === 'eol=crlf' || attribute.startsWith('filter=') || attribute.startsWith('working-tree-encoding=') || macros.has(attribute);
}

const MATCH_EVERYTHING = parseGitPattern('*')!;

/** The patterns of an attributes text's lines that set a converting attribute (a quoted pattern, which is rare, counts as matching everything). */
function convertingPatterns(text: string, macros: ReadonlySet<string>): GitPattern[] {
  const patterns: GitPattern[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('[attr]')) continue;
    const [pattern, ...attributes] = line.split(/\s+/);
    if (!attributes.some((a) => convertsOnCheckout(a, macros))) continue;
    patterns.push(pattern.startsWith('"') ? MATCH_EVERYTHING : parseGitPattern(pattern, false) ?? MATCH_EVERYTHING);
  }
  return patterns;
}

/** The macros (`[attr]name ...`) that set a converting attribute. */
function convertingMacros(texts: readonly string[]): Set<string> {
  const macros = new Set<string>();
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const match = /^\s*\[attr\](\S+)\s+(.*)$/.exec(line);
      if (match && match[2].split(/\s+/).some((a) => convertsOnCheckout(a, new Set()))) macros.add(match[1]);
    }
  }
  return macros;
}

/**
 * Which files of a work tree git converts on checkout, from its attributes files (the user's,
 * the repository's `info/attributes` and every `.gitattributes`). Conservative: a line that sets
 * a converting attribute counts for every file its pattern matches, even where a later line
 * unsets it; such files' bytes are copied rather than taken from git.
 */
export class CheckoutConversions {
  private readonly byFolder = new Map<string, GitPattern[]>();
  private readonly macros: Set<string>;
  /** The patterns of the attributes files that apply to the whole tree (the user's, `info/attributes`). */
  private readonly wholeTree: GitPattern[];

  constructor(private readonly root: string, wholeTreeTexts: readonly string[]) {
    this.macros = convertingMacros(wholeTreeTexts);
    const patterns = wholeTreeTexts.flatMap((t) => convertingPatterns(t, this.macros));
    if (patterns.length) this.byFolder.set(root, patterns);
    this.wholeTree = patterns;
  }

  /** The `.gitattributes` of `folder` (absolute), or undefined when it has none. */
  setFile(folder: string, text: string | undefined): void {
    const patterns = text ? convertingPatterns(text, new Set([...this.macros, ...convertingMacros([text])])) : [];
    const all = folder === this.root ? [...this.wholeTree, ...patterns] : patterns;
    if (all.length) this.byFolder.set(folder, all);
    else this.byFolder.delete(folder);
  }

  /** Whether a converting attribute may apply to the file at `absolute`. */
  applies(absolute: string): boolean {
    if (!this.byFolder.size) return false;
    for (const [folder, patterns] of this.byFolder) {
      if (!absolute.startsWith(folder + sep)) continue;
      const path = absolute.slice(folder.length + 1).split(sep).join('/');
      if (patterns.some((p) => matchesGitPattern(p, path, false))) return true;
    }
    return false;
  }
}
