import { lstatSync, realpathSync } from 'fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'path';

/**
 * Paths under the home folder a sandboxed command never reads: keys, cloud and registry
 * credentials, key rings, shell histories, and the editors' and Tally's own stored state.
 */
export const SECRET_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.config/op',
  '.config/gh',
  '.config/hub',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d',
  '.gnupg',
  '.local/share/keyrings',
  '.password-store',
  'Library/Keychains',
  '.bash_history',
  '.zsh_history',
  '.tally',
  '.config/Code/User/globalStorage',
  '.config/Code - Insiders/User/globalStorage',
  '.config/VSCodium/User/globalStorage',
  '.vscode-server/data/User/globalStorage',
  '.local/share/code-server/User/globalStorage',
  'Library/Application Support/Code/User/globalStorage',
  'Library/Application Support/Code - Insiders/User/globalStorage',
];

/**
 * Paths inside a workspace folder that stay read-only in the sandbox: other programs run what
 * they say outside it (git runs its config's programs and its hooks on the editor's next
 * `git status`; VS Code reads tasks and settings; Tally reads its agents, skills and hooks).
 */
export const READ_ONLY_INSIDE: readonly string[] = ['.git/config', '.git/hooks', '.vscode', '.tally'];

export type PathKind = 'dir' | 'file' | 'missing';

export interface PolicyPath {
  /** The real path (links resolved; a missing path's nearest existing folder resolved). */
  path: string;
  kind: PathKind;
}

/** What a sandbox lets a command touch, with each path resolved on disk. */
export interface SandboxPolicy {
  /** The workspace folders, real paths: the only places written besides the private temporary folder. */
  writable: string[];
  /** `.git` folders directly in a workspace folder: fixed in place, so they cannot be renamed away from their read-only parts. */
  gitDirs: string[];
  /** Paths inside the writable folders kept read-only. */
  readOnly: PolicyPath[];
  /** Paths never read (secrets): existing ones are covered, missing ones cannot be made. */
  hidden: PolicyPath[];
  network: boolean;
}

export interface PolicyInput {
  folders: readonly string[];
  home: string;
  /** More paths to hide, from the user's own settings: absolute, or `~/…`. */
  extraHidden: readonly string[];
  /** Storage folders of the editor and Tally (absolute). */
  storage: readonly string[];
  network: boolean;
}

/** An lstat that says "missing" without throwing (most listed paths are missing, and an error costs a stack). */
const lstatOrNone = (path: string) => {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // not a folder on the way (ENOTDIR), or unreadable
  }
};

function kindOf(path: string): PathKind {
  const stat = lstatOrNone(path);
  return !stat ? 'missing' : stat.isDirectory() ? 'dir' : 'file';
}

/** The real path; for a missing one, its nearest existing parent's real path with the rest appended. */
export function realPathOf(path: string): string {
  if (lstatOrNone(path)) {
    try {
      return realpathSync(path);
    } catch {
      // a link to nothing: resolved as its folder, below
    }
  }
  const parent = dirname(path);
  return parent === path ? path : join(realPathOf(parent), basename(path));
}

/**
 * A path looked up on disk: one lstat for a plain path that exists or is missing (most of the
 * list, on most machines), its real path only when it is a link or lies under one (`realParents`
 * holds the real path of folders already resolved, such as home).
 */
function resolved(path: string, realParents: Map<string, string>): PolicyPath {
  const parent = dirname(path);
  let realParent = realParents.get(parent);
  if (realParent === undefined) {
    realParent = realPathOf(parent);
    realParents.set(parent, realParent);
  }
  const candidate = join(realParent, basename(path));
  const stat = lstatOrNone(candidate);
  if (!stat) return { path: candidate, kind: 'missing' };
  if (!stat.isSymbolicLink()) return { path: candidate, kind: stat.isDirectory() ? 'dir' : 'file' };
  const real = realPathOf(candidate);
  return { path: real, kind: kindOf(real) };
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/** `~/x` against the home folder; a relative path is taken from home too (a setting has no other base). */
export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : join(home, path);
}

/** How the card names a hidden path: `~/.ssh` under home, the absolute path elsewhere. */
export function shownPath(path: string, home: string): string {
  const rel = relative(home, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? `~/${rel.split(sep).join('/')}` : path;
}

/** Every path a sandbox hides, as configured (before looking at the disk). */
export function hiddenPaths(input: Pick<PolicyInput, 'home' | 'extraHidden' | 'storage'>): string[] {
  const all = [...SECRET_PATHS.map((p) => join(input.home, p)), ...input.storage, ...input.extraHidden.map((p) => expandHome(p, input.home))];
  return [...new Set(all)];
}

/**
 * Looks each path up on disk. A hidden path that holds a workspace folder is left visible (the
 * user opened that folder to work in); a secret inside a workspace folder stays hidden.
 */
export function resolvePolicy(input: PolicyInput): SandboxPolicy {
  const writable = [...new Set(input.folders.map(realPathOf))];
  const realParents = new Map(writable.map((f) => [f, f]));
  const gitDirs = writable.map((f) => join(f, '.git')).filter((g) => kindOf(g) === 'dir');
  const readOnly = writable.flatMap((f) => READ_ONLY_INSIDE.map((name) => resolved(join(f, name), realParents))).filter((p) => writable.some((f) => inside(p.path, f)));
  const byPath = new Map(hiddenPaths(input).map((p) => resolved(p, realParents)).map((p) => [p.path, p]));
  const found = [...byPath.values()].filter((p) => !writable.some((f) => inside(f, p.path)));
  // A path inside another hidden folder is hidden with it (and nothing can be mounted inside that one).
  const hidden = found.filter((p) => !found.some((q) => q !== p && q.kind === 'dir' && inside(p.path, q.path)));
  return { writable, gitDirs, readOnly, hidden, network: input.network };
}
