import type { ResolvedPath, Workspace } from '../ports/workspace';

/**
 * Finding the git directory a command run in a folder uses, the way git's own discovery does
 * (setup.c): upward from the folder, a `.git` file naming a git directory (`gitdir: PATH`), a
 * `.git` folder that is a git directory, or a folder that is itself one (a bare repository). A
 * folder is a git directory when its HEAD names a ref or a commit and its common directory (the
 * folder itself, or the one its `commondir` file names, as in a linked worktree) holds `objects`
 * and `refs`; git skips a `.git` folder that is not one and keeps looking upward, so this does too.
 * Where what git would decide cannot be told from here (a HEAD that is a link, `objects` that is
 * not a folder), or the answer lies outside the workspace, it says why instead.
 */
export interface GitDirectory {
  /** The git directory (a worktree's own, for a linked worktree). */
  gitDir: ResolvedPath;
  /** Its common directory: where config, hooks, objects and refs live. */
  commonDir: ResolvedPath;
  /** The top of the work tree (the bare repository's folder for a bare one). */
  top: string;
}

const MAX_SMALL_FILE = 64 * 1024;

const parentOf = (dir: string) => dir.slice(0, Math.max(dir.lastIndexOf('/'), dir.lastIndexOf('\\')));
const isAbsolute = (path: string) => /^([\\/]|[A-Za-z]:[\\/])/.test(path);
export const childOf = (dir: string, name: string) => (isAbsolute(name) ? name : `${dir.replace(/[\\/]$/, '')}/${name}`);
const nameOf = (path: string) => path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

class Unsure extends Error {}

async function existing(workspace: Workspace, absolute: string): Promise<{ path: ResolvedPath; kind: string } | undefined> {
  const path = await workspace.resolve(absolute, { mustExist: false });
  const kind = await workspace.kind(path);
  return kind ? { path, kind } : undefined;
}

async function smallText(workspace: Workspace, path: ResolvedPath): Promise<string> {
  const { bytes, size } = await workspace.readFile(path, MAX_SMALL_FILE, { savedOnly: true });
  if (size > MAX_SMALL_FILE) throw new Unsure(`${path.relative} is larger than git would expect`);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The common directory of a git directory: the one its `commondir` file names (trailing line breaks dropped, as git does), or itself. */
async function commonDirOf(workspace: Workspace, gitDir: ResolvedPath): Promise<ResolvedPath | undefined> {
  const file = await existing(workspace, childOf(gitDir.absolute, 'commondir'));
  if (!file) return gitDir;
  if (file.kind !== 'file') throw new Unsure(`${file.path.relative} is not a file git can read`);
  const target = (await smallText(workspace, file.path)).replace(/[\r\n]+$/, '');
  const found = await existing(workspace, childOf(gitDir.absolute, target));
  return found?.kind === 'directory' ? found.path : undefined;
}

/** Whether git takes `dir` as a git directory; undefined when it does not; throws Unsure when it cannot be told. */
async function asGitDirectory(workspace: Workspace, dir: ResolvedPath): Promise<{ gitDir: ResolvedPath; commonDir: ResolvedPath } | undefined> {
  const head = (await workspace.list(dir.absolute)).find((entry) => entry.name === 'HEAD');
  if (!head || head.kind === 'directory') return undefined;
  // git reads a HEAD that is a link by where it points (it must say refs/…), not by what it points to.
  if (head.kind !== 'file') throw new Unsure(`${dir.relative}/HEAD is a link or a special file, which git judges in ways the card does not follow`);
  const text = await smallText(workspace, await workspace.resolve(childOf(dir.absolute, 'HEAD'), { mustExist: true }));
  if (!/^ref:\s*refs\//.test(text) && !/^([0-9a-f]{64}|[0-9a-f]{40})/.test(text)) return undefined;
  const commonDir = await commonDirOf(workspace, dir);
  if (!commonDir) return undefined;
  for (const name of ['objects', 'refs']) {
    const found = await existing(workspace, childOf(commonDir.absolute, name));
    if (!found) return undefined;
    if (found.kind !== 'directory') throw new Unsure(`${found.path.relative} is not a folder, which git may or may not accept`);
  }
  return { gitDir: dir, commonDir };
}

/** The git directory git uses from `cwd`, searched up to the workspace folder, or why the card cannot tell which it is. */
export async function findGitDirectory(cwd: ResolvedPath, workspace: Workspace): Promise<GitDirectory | { reason: string }> {
  for (let dir = cwd.absolute; ; dir = parentOf(dir)) {
    try {
      const dotGit = await existing(workspace, childOf(dir, '.git'));
      if (dotGit?.kind === 'file') {
        const target = /^gitdir: (.*?)\s*$/.exec((await smallText(workspace, dotGit.path)).split('\n')[0])?.[1];
        if (!target) return { reason: `${dotGit.path.relative} could not be read as a "gitdir:" file` };
        const named = await existing(workspace, childOf(dir, target)).catch(() => undefined);
        const found = named?.kind === 'directory' ? await asGitDirectory(workspace, named.path) : undefined;
        if (!found) return { reason: `${dotGit.path.relative} points to a git directory outside the workspace (or to none), whose configuration the card cannot show` };
        return { ...found, top: dir };
      }
      if (dotGit?.kind === 'directory') {
        const found = await asGitDirectory(workspace, dotGit.path);
        if (found) return { ...found, top: dir };
      }
      const bare = await asGitDirectory(workspace, await workspace.resolve(dir, { mustExist: true }));
      if (bare) return { ...bare, top: dir };
    } catch (error) {
      if (error instanceof Unsure) return { reason: `${error.message}, so the card cannot tell which git configuration applies` };
      return { reason: `the git directory at ${nameOf(dir) || dir} leads outside the workspace or could not be read, so git would read a configuration the card cannot show` };
    }
    if (dir === cwd.folder || !parentOf(dir) || parentOf(dir) === dir) {
      return { reason: 'no git repository lies between this folder and the workspace folder, so git would use one outside the workspace, whose configuration the card cannot show' };
    }
  }
}
