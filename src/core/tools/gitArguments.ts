import type { ResolvedPath, Workspace } from '../ports/workspace';

/**
 * Whether the arguments of a read-only git command stay inside the repository's work tree. git
 * takes each word that is not an option as a revision or a pathspec, and `git diff` with two
 * paths of which one lies outside the work tree compares them as plain files (an implicit
 * `--no-index`), which reads any file on the machine. So a word must be a revision or a path
 * that stays inside the work tree: no absolute path, no `~`, no backslash or drive letter, no
 * `..` that climbs above the top (counted from the folder the command runs in, or from the top
 * for the `:/` and `:(top)` pathspec magic), and nothing that resolves outside the workspace
 * through a link. A word that is not a path (a branch, `HEAD~1`, `main..topic`) passes all of
 * these. `--` only separates revisions from paths.
 */
export function gitWordOutside(word: string, cwdParts: readonly string[]): string | undefined {
  if (word === '--') return undefined;
  let path = word;
  let from = cwdParts;
  // Pathspec magic: `:(top,icase)rest`, or the short form `:` + any of `/!^` (+ an optional `:`).
  const long = /^:\(([^)]*)\)/.exec(path);
  if (long) {
    path = path.slice(long[0].length);
    if (long[1].split(',').some((m) => m.trim() === 'top')) from = [];
  } else if (path.startsWith(':')) {
    const short = /^:([/!^]*):?/.exec(path)![0];
    if (short.includes('/')) from = [];
    path = path.slice(short.length);
  }
  if (/^[\\/~]/.test(path) || /^[A-Za-z]:/.test(path)) return `${word} names a path outside the repository's work tree`;
  if (path.includes('\\')) return `${word} has a backslash, which some systems take as a path separator`;
  let depth = from.length;
  for (const part of path.split('/')) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return `${word} climbs out of the repository's work tree`;
  }
  return undefined;
}

const relativeParts = (top: string, dir: string) => dir.slice(top.length).split(/[\\/]/).filter(Boolean);

/**
 * Whether every word of a git command after its subcommand that is not an option stays inside the
 * work tree `top` (see gitWordOutside) and inside the workspace when read as a path from `cwd`.
 */
export async function gitArgumentsInside(words: readonly string[], cwd: ResolvedPath, top: string, workspace: Workspace): Promise<boolean> {
  if (cwd.absolute !== top && !cwd.absolute.startsWith(`${top.replace(/[\\/]$/, '')}/`) && !cwd.absolute.startsWith(`${top.replace(/[\\/]$/, '')}\\`)) return false;
  const parts = relativeParts(top, cwd.absolute);
  for (const word of words) {
    if (word.startsWith('-') && word !== '--') continue;
    if (gitWordOutside(word, parts)) return false;
    if (word === '--' || word.startsWith(':')) continue;
    const inside = await workspace.resolve(`${cwd.absolute.replace(/[\\/]$/, '')}/${word}`, { mustExist: false }).then(
      () => true,
      () => false,
    );
    if (!inside) return false;
  }
  return true;
}
