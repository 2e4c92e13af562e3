import type { ResolvedPath, Workspace } from '../ports/workspace';
import { parseGitConfig, type GitConfigEntry } from './gitConfigFile';
import { childOf, findGitDirectory } from './gitDirectory';

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
  /** The top of the work tree git uses (absolute): where revisions and paths a command adds must stay. */
  workTree: string;
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
  // A partial clone fetches missing objects while reading: a remote reached through the `ext::`
  // transport (allowed by protocol.ext.allow, or rewritten to by url.<base>.insteadOf) runs a program.
  /^protocol\.(.+\.)?allow$/,
  /^url\.ext::.+\.(insteadof|pushinsteadof)$/,
];
/** Settings that run a program only with some values: a remote whose address is an `ext::` command. */
const PROGRAM_VALUES: readonly { key: RegExp; value: RegExp }[] = [{ key: /^remote\..+\.(url|pushurl)$/, value: /^\s*ext::/i }];
const INCLUDE_KEY = /^(include|includeif\..+)\.path$/;
/** Keys are matched lowercased (a subsection keeps its case in the key, but no pattern depends on it). */
const matchable = (key: string) => key.toLowerCase();

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
  const found = await findGitDirectory(cwd, workspace);
  if ('reason' in found) return found;
  const { gitDir, top } = found;
  const common = found.commonDir.absolute;
  const files: { file: string; text: string }[] = [];
  try {
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
      if (PROGRAM_KEYS.some((pattern) => pattern.test(key)) || PROGRAM_VALUES.some((p) => p.key.test(key) && p.value.test(entry.value))) programs.push({ ...entry, file });
    }
  }
  const hooksPath = programs.filter((p) => p.key.toLowerCase() === 'core.hookspath').pop()?.value;
  if (hooksPath?.startsWith('~')) return { reason: `core.hooksPath = ${hooksPath} lies outside the workspace, so the card cannot show its hooks` };
  const hooks = await readOnlyHooks(hooksPath === undefined ? childOf(common, 'hooks') : childOf(top, hooksPath), workspace);
  if ('reason' in hooks) return hooks;
  const namedFiles = await programFiles(programs, top, workspace);
  if ('reason' in namedFiles) return namedFiles;
  return { files, programs, hooks: hooks.hooks, namedFiles: namedFiles.files, workTree: top };
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
