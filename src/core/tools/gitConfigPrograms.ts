import type { ResolvedPath, Workspace } from '../ports/workspace';
import { parseGitConfig, type GitConfigEntry } from './gitConfigFile';

/** The repository's own git config files a git command reads, and the settings in them that make git run a program. */
export interface GitConfigPrograms {
  /** Each config file, relative to its workspace folder, with its text (an allowance ends when one changes). */
  files: { file: string; text: string }[];
  /** The settings that name a program, with the file each comes from. */
  programs: (GitConfigEntry & { file: string })[];
  /** The hooks a read-only command runs (`post-index-change`: status runs it when it refreshes the index), with their text. */
  hooks: { file: string; text: string }[];
  /** Files inside the workspace that a setting names as its program (`core.fsmonitor = .git/hooks/fsmonitor-watchman`), with their text. */
  namedFiles: { file: string; text: string }[];
}

/** The one hook a read-only subcommand runs: `git status` (and `diff`) rewrite the index after refreshing it, which runs it. */
const READ_ONLY_HOOKS = ['post-index-change'];

const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * Settings that make git run a program: the fsmonitor hook (status, diff), pagers and editors,
 * external diff programs and the textconv/command of diff drivers that .gitattributes select,
 * clean/smudge/process filters (status runs clean filters), signature checkers (`log.showSignature`
 * runs gpg.program), and the commands git uses to reach a remote (a partial clone fetches missing
 * objects while reading). Where hooks live, aliases and merge drivers are listed too: no read-only
 * command runs aliases or merge drivers, but the user should see them before allowing git.
 */
const PROGRAM_KEYS: readonly RegExp[] = [
  /^core\.(fsmonitor|pager|editor|sshcommand|askpass|gitproxy|hookspath|alternaterefscommand)$/,
  /^pager\.[^.]+$/,
  /^sequence\.editor$/,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^merge\..+\.driver$/,
  /^(diff|merge)tool\..+\.cmd$/,
  /^credential\.(.+\.)?helper$/,
  /^gpg\.(.+\.)?program$/,
  /^remote\..+\.(uploadpack|receivepack)$/,
  /^uploadpack\.packobjectshook$/,
  /^alias\..+$/,
];
const INCLUDE_KEY = /^(include|includeif\..+)\.path$/;
/** Keys are matched lowercased (a subsection keeps its case in the key, but no pattern depends on it). */
const matchable = (key: string) => key.toLowerCase();

const parentOf = (dir: string) => dir.slice(0, Math.max(dir.lastIndexOf('/'), dir.lastIndexOf('\\')));
const childOf = (dir: string, name: string) => (/^([\\/]|[A-Za-z]:[\\/])/.test(name) ? name : `${dir.replace(/[\\/]$/, '')}/${name}`);

async function existing(workspace: Workspace, absolute: string): Promise<{ path: ResolvedPath; kind: string } | undefined> {
  const path = await workspace.resolve(absolute, { mustExist: false });
  const kind = await workspace.kind(path);
  return kind ? { path, kind } : undefined;
}

async function savedText(workspace: Workspace, path: ResolvedPath): Promise<string> {
  const { bytes, size } = await workspace.readFile(path, MAX_CONFIG_BYTES, { savedOnly: true });
  if (size > MAX_CONFIG_BYTES) throw new Error('too large');
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/**
 * Whether git takes `dir` as a git directory: a HEAD file naming a ref or a commit, and objects
 * and refs folders (or a commondir file pointing to them, as in a linked worktree's). Git skips a
 * `.git` folder that is not one and keeps looking upward; a folder that is one is a bare repository.
 */
async function isGitDirectory(workspace: Workspace, dir: string): Promise<boolean> {
  const head = await existing(workspace, childOf(dir, 'HEAD'));
  if (head?.kind !== 'file') return false;
  const text = await savedText(workspace, head.path).catch(() => '');
  if (!/^(ref: *refs\/|[0-9a-f]{40})/.test(text)) return false;
  if ((await existing(workspace, childOf(dir, 'commondir')))?.kind === 'file') return true;
  return (await existing(workspace, childOf(dir, 'objects')))?.kind === 'directory' && (await existing(workspace, childOf(dir, 'refs')))?.kind === 'directory';
}

/**
 * The git directory git uses from `cwd`: the nearest `.git` folder upward that is a git directory,
 * the folder a `.git` file names (`gitdir: PATH`, as in linked worktrees and submodules), or a
 * bare repository. It must lie in the workspace.
 */
async function gitDirectory(cwd: ResolvedPath, workspace: Workspace): Promise<{ gitDir: ResolvedPath; top: string } | { reason: string }> {
  for (let dir = cwd.absolute; ; dir = parentOf(dir)) {
    let dotGit: Awaited<ReturnType<typeof existing>>;
    let valid: boolean;
    let bare: boolean;
    try {
      dotGit = await existing(workspace, childOf(dir, '.git'));
      valid = dotGit?.kind === 'directory' && (await isGitDirectory(workspace, dotGit.path.absolute));
      bare = !valid && dotGit?.kind !== 'file' && (await isGitDirectory(workspace, dir));
    } catch {
      return { reason: `the git directory at ${dir} leads outside the workspace, so git would read a configuration the card cannot show` };
    }
    if (dotGit && valid) return { gitDir: dotGit.path, top: dir };
    if (bare) return { gitDir: await workspace.resolve(dir, { mustExist: true }), top: dir };
    if (dotGit?.kind === 'file') {
      let target: string | undefined;
      try {
        target = /^gitdir: *(.+?)\r?$/m.exec(await savedText(workspace, dotGit.path))?.[1];
      } catch {
        target = undefined;
      }
      if (!target) return { reason: `${dotGit.path.relative} could not be read as a "gitdir:" file` };
      try {
        const found = await existing(workspace, childOf(dir, target));
        if (found?.kind === 'directory') return { gitDir: found.path, top: dir };
      } catch {
        // resolve refuses a path outside the workspace
      }
      return { reason: `${dotGit.path.relative} points to a git directory outside the workspace (or to none), whose configuration the card cannot show` };
    }
    if (dir === cwd.folder || !parentOf(dir) || parentOf(dir) === dir) {
      return { reason: 'no git repository lies between this folder and the workspace folder, so git would use one outside the workspace, whose configuration the card cannot show' };
    }
  }
}

/** A config file of the repository, or undefined when there is none; throws when it cannot be read. */
async function configFile(workspace: Workspace, absolute: string): Promise<{ file: string; text: string } | undefined> {
  const found = await existing(workspace, absolute);
  if (!found) return undefined;
  return { file: found.path.relative, text: await savedText(workspace, found.path) };
}

/**
 * The repository's own config files that git reads from `cwd` (`config` in the common git
 * directory, `config.worktree` beside it), and the settings in them that run programs; or why
 * they cannot be shown: a git directory outside the workspace, an unreadable file, an include of
 * another file, or submodules (each has a configuration of its own, and status visits them). With
 * them, the hooks a read-only command runs.
 */
export async function gitConfigPrograms(cwd: ResolvedPath, workspace: Workspace): Promise<GitConfigPrograms | { reason: string }> {
  const found = await gitDirectory(cwd, workspace);
  if ('reason' in found) return found;
  const { gitDir, top } = found;
  const files: { file: string; text: string }[] = [];
  let common = gitDir.absolute;
  try {
    const commondir = await configFile(workspace, childOf(gitDir.absolute, 'commondir'));
    if (commondir) {
      const commonDir = await existing(workspace, childOf(gitDir.absolute, commondir.text.trim()));
      if (commonDir?.kind !== 'directory') throw new Error('no common directory');
      common = commonDir.path.absolute;
    }
    for (const absolute of [childOf(common, 'config'), childOf(gitDir.absolute, 'config.worktree')]) {
      const file = await configFile(workspace, absolute);
      if (file) files.push(file);
    }
    for (const submodules of [childOf(common, 'modules'), childOf(top, '.gitmodules')]) {
      if (await existing(workspace, submodules)) return { reason: 'the repository has submodules, each with a git configuration of its own that the card does not show' };
    }
  } catch {
    return { reason: 'the repository\'s git configuration could not be read inside the workspace' };
  }
  const programs: GitConfigPrograms['programs'] = [];
  for (const { file, text } of files) {
    const entries = parseGitConfig(text);
    if ('reason' in entries) return { reason: `${file} is not valid git configuration (${entries.reason})` };
    for (const entry of entries) {
      const key = matchable(entry.key);
      if (INCLUDE_KEY.test(key)) return { reason: `${file} includes another config file (${entry.key} = ${entry.value}), which the card cannot show` };
      if (key === 'core.worktree') return { reason: `${file} moves git's working tree elsewhere (core.worktree = ${entry.value}), which the card does not follow` };
      if (PROGRAM_KEYS.some((pattern) => pattern.test(key))) programs.push({ ...entry, file });
    }
  }
  const hooksPath = programs.filter((p) => p.key.toLowerCase() === 'core.hookspath').pop()?.value;
  if (hooksPath?.startsWith('~')) return { reason: `core.hooksPath = ${hooksPath} lies outside the workspace, so the card cannot show its hooks` };
  const hooks = await readOnlyHooks(hooksPath === undefined ? childOf(common, 'hooks') : childOf(top, hooksPath), workspace);
  if ('reason' in hooks) return hooks;
  const namedFiles = await programFiles(programs, top, workspace);
  if ('reason' in namedFiles) return namedFiles;
  return { files, programs, hooks: hooks.hooks, namedFiles: namedFiles.files };
}

/**
 * The files inside the workspace that settings name as their program by a path (git runs them
 * from the top of the worktree), so that an allowance ends when one changes; a path outside the
 * workspace is only shown.
 */
async function programFiles(programs: GitConfigPrograms['programs'], top: string, workspace: Workspace): Promise<{ files: { file: string; text: string }[] } | { reason: string }> {
  const files: { file: string; text: string }[] = [];
  for (const { key, value } of programs) {
    const program = /^\s*(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(value.replace(/^!/, ''));
    const path = program?.[1] ?? program?.[2] ?? program?.[3];
    if (!path?.includes('/') || key.toLowerCase() === 'core.hookspath') continue;
    let found: Awaited<ReturnType<typeof existing>>;
    try {
      found = await existing(workspace, childOf(top, path));
    } catch {
      continue;
    }
    if (found?.kind !== 'file' || files.some((f) => f.file === found.path.relative)) continue;
    try {
      files.push({ file: found.path.relative, text: await savedText(workspace, found.path) });
    } catch {
      return { reason: `${found.path.relative}, which ${key} runs, could not be read as text, so the card cannot bind the allowance to it` };
    }
  }
  return { files };
}

/** The hooks a read-only command runs from `dir`, which must lie inside the workspace, with their text. */
async function readOnlyHooks(dir: string, workspace: Workspace): Promise<{ hooks: { file: string; text: string }[] } | { reason: string }> {
  const hooks: { file: string; text: string }[] = [];
  for (const name of READ_ONLY_HOOKS) {
    let file: string = name;
    try {
      const found = await existing(workspace, childOf(dir, name));
      if (!found) continue;
      file = found.path.relative;
      hooks.push({ file, text: await savedText(workspace, found.path) });
    } catch {
      return { reason: `the ${file} hook lies outside the workspace or could not be read as text, so the card cannot show it` };
    }
  }
  return { hooks };
}

/** The card's lines for those settings, grouped by file, or undefined when there are none. */
export function describeGitPrograms(found: GitConfigPrograms): string | undefined {
  const lines: string[] = [];
  for (const hook of found.hooks) lines.push(`git status runs the hook ${hook.file} when it updates the index:`, ...hook.text.trimEnd().split('\n'));
  for (const { file } of found.files) {
    const here = found.programs.filter((p) => p.file === file);
    if (here.length) lines.push(`git can run these programs set in ${file}:`, ...here.map((p) => `${p.key} = ${p.value}`));
  }
  return lines.length ? lines.join('\n') : undefined;
}
