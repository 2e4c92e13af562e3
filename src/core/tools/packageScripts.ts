import type { ResolvedPath, Workspace } from '../ports/workspace';
import { CODE_LOADING_OPTIONS, unsafeOptionIn, type PackageManager } from './commandRules';
import { packageManagerFiles, type PackageManagerFiles } from './packageManagerFiles';

/** The scripts a command runs, read from the package.json the package manager will use. */
export interface PackageScripts {
  /** That package.json, relative to its workspace folder. */
  file: string;
  /** The lifecycle scripts that run, in order (`pretest`, `test`, `posttest`), with their text. */
  scripts: { name: string; text: string }[];
  /** Settings files beside it or above it in the workspace that change how scripts run (`.npmrc`, `pnpm-workspace.yaml`, `.yarnrc.yml`), with their text. */
  settings: PackageManagerFiles['settings'];
  /** Code the package manager loads or its settings name (`.pnpmfile.cjs`, the `yarnPath` release), by content. */
  code: PackageManagerFiles['code'];
  /** Fields of package.json besides the scripts that choose what runs (`packageManager`, `devEngines`, `pnpm`; `config`, which scripts read as variables), as JSON. */
  fields: { name: string; value: string }[];
}

/** package.json fields that choose which package manager or Node.js runs the scripts, or how (pnpm's settings). */
const RUNNING_FIELDS = ['packageManager', 'devEngines', 'pnpm', 'config'];

/** npm options that change nothing about what runs; every other option is npm configuration. */
const NPM_QUIET_OPTIONS = new Set(['--silent', '-s', '--quiet', '-q']);
/** The commands each package manager takes as "run this script" (yarn has no `t`: `yarn t` runs a script or binary named t). */
const SCRIPT_SHORTHANDS: Record<PackageManager, ReadonlyMap<string, string>> = {
  npm: new Map([['test', 'test'], ['t', 'test'], ['tst', 'test'], ['start', 'start']]),
  pnpm: new Map([['test', 'test'], ['t', 'test'], ['tst', 'test'], ['start', 'start']]),
  yarn: new Map([['test', 'test'], ['start', 'start']]),
};
const RUN_COMMANDS = new Set(['run', 'run-script', 'rum', 'urn']);
/**
 * pnpm and yarn (classic and berry) commands that are not scripts: `pnpm NAME` and `yarn NAME` run
 * the script NAME only when NAME is none of these (and otherwise may run a binary), so a shorthand
 * is allowed only for a name outside this list that package.json defines.
 */
const PACKAGE_MANAGER_COMMANDS = new Set([
  'add', 'approve-builds', 'audit', 'autoclean', 'bin', 'cache', 'cat-file', 'cat-index', 'check', 'ci', 'config', 'constraints', 'create', 'dedupe',
  'deploy', 'dlx', 'doctor', 'env', 'exec', 'explain', 'fetch', 'find-hash', 'generate-lock-entry', 'get', 'global', 'help', 'i', 'ignored-builds',
  'import', 'info', 'init', 'install', 'install-test', 'it', 'licenses', 'link', 'list', 'ln', 'login', 'logout', 'ls', 'node', 'npm', 'outdated',
  'owner', 'pack', 'patch', 'patch-commit', 'patch-remove', 'plugin', 'policies', 'prune', 'publish', 'rb', 'rebuild', 'recursive', 'remove', 'rm',
  'root', 'rum', 'run-script', 'sbom', 'search', 'self-update', 'server', 'set', 'setup', 'stage', 'store', 'tag', 'team', 'un', 'uninstall', 'unlink', 'unplug', 'up',
  'update', 'upgrade', 'upgrade-interactive', 'urn', 'version', 'versions', 'why', 'workspace', 'workspaces', 't', 'tst',
]);
const MAX_PACKAGE_BYTES = 1024 * 1024;
const MAX_SCRIPTS = 40;

/** The package scripts a script's text runs by name: `npm run NAME`, `npm test`, `pnpm NAME`, `yarn run NAME`… (a superset: a word that names no script is dropped). */
function scriptsCalledBy(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/\b(?:npm|pnpm|yarn|bun)(?:\s+(?:run|run-script|-s|--silent|-w\s+\S+|--workspace(?:=|\s+)\S+|--if-present))*\s+([A-Za-z0-9_:.@/-]+)/g)) {
    names.push(match[1], SCRIPT_SHORTHANDS.npm.get(match[1]) ?? match[1]);
  }
  for (const match of text.matchAll(/\b(?:run-s|run-p|npm-run-all)\s+([^&|;]+)/g)) names.push(...match[1].split(/\s+/).filter((w) => w && !w.startsWith('-')));
  return [...new Set(names)];
}

/**
 * Which script `words` (starting with the package manager) runs, when it is one of the forms an
 * allowance supports, and why it cannot be allowed when an option or argument changes what runs.
 */
export function scriptCall(manager: PackageManager, words: readonly string[]): { script?: string; reason?: string } {
  const [, command, ...rest] = words;
  if (command === undefined || command.startsWith('-')) return { reason: `${manager} options before the command change what runs` };
  let script = SCRIPT_SHORTHANDS[manager].get(command);
  let after = rest;
  if (RUN_COMMANDS.has(command) && (manager === 'npm' || command === 'run')) [script, ...after] = rest;
  else if (script === undefined && manager !== 'npm' && !PACKAGE_MANAGER_COMMANDS.has(command)) script = command;
  if (script === undefined || script.startsWith('-')) return { reason: `\`${manager} ${command}\` is not one of the forms that run a package script (test, start, run NAME)` };
  const end = after.indexOf('--');
  const own = manager === 'npm' ? (end < 0 ? after : after.slice(0, end)) : [];
  const npmConfig = own.find((w) => w.startsWith('-') && !NPM_QUIET_OPTIONS.has(w));
  if (npmConfig) return { script, reason: `npm reads ${npmConfig} as configuration, which can change what runs` };
  // npm passes its positional words and everything after `--` to the script; pnpm and yarn pass every word.
  const args = manager === 'npm' ? [...own.filter((w) => !w.startsWith('-')), ...(end < 0 ? [] : after.slice(end + 1))] : after;
  const loading = unsafeOptionIn(args, CODE_LOADING_OPTIONS);
  if (loading) return { script, reason: `${loading} in the script's arguments loads code or settings the card cannot show` };
  return { script };
}

const parentOf = (dir: string) => dir.slice(0, Math.max(dir.lastIndexOf('/'), dir.lastIndexOf('\\')));
const sep = (dir: string) => (dir.includes('\\') && !dir.includes('/') ? '\\' : '/');
const childOf = (dir: string, name: string) => `${dir}${dir.endsWith('/') || dir.endsWith('\\') ? '' : sep(dir)}${name}`;

async function existing(workspace: Workspace, absolute: string): Promise<ResolvedPath | undefined> {
  const path = await workspace.resolve(absolute, { mustExist: false });
  return (await workspace.kind(path)) ? path : undefined;
}

async function savedText(workspace: Workspace, path: ResolvedPath): Promise<string | undefined> {
  const { bytes, size } = await workspace.readFile(path, MAX_PACKAGE_BYTES, { savedOnly: true });
  if (size > MAX_PACKAGE_BYTES) return undefined;
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/**
 * The package.json the package manager uses from `cwd`: npm takes the nearest folder upward that
 * holds a package.json or a node_modules folder; pnpm and yarn differ between versions, so for
 * them only a package.json in `cwd` itself counts. It must lie inside the workspace folder.
 */
async function packageFile(manager: PackageManager, cwd: ResolvedPath, workspace: Workspace): Promise<ResolvedPath | { reason: string }> {
  if (/(^|[\\/])node_modules([\\/]|$)/.test(cwd.relative)) return { reason: 'the folder is inside node_modules' };
  for (let dir = cwd.absolute; ; dir = parentOf(dir)) {
    const found = await existing(workspace, childOf(dir, 'package.json'));
    if (found) return found;
    if (manager !== 'npm') return { reason: `${manager} looks for package.json differently between versions and there is none in this folder` };
    if (await existing(workspace, childOf(dir, 'node_modules'))) return { reason: `npm would use ${dir}, which has node_modules but no package.json` };
    if (dir === cwd.folder || parentOf(dir) === dir || !parentOf(dir)) return { reason: 'no package.json lies between this folder and the workspace folder, so npm would look outside the workspace' };
  }
}

/** The scripts `script` runs (with its pre and post scripts) and the settings beside them, or why they cannot be shown. */
export async function packageScripts(manager: PackageManager, script: string, cwd: ResolvedPath, workspace: Workspace): Promise<PackageScripts | { reason: string }> {
  let file: ResolvedPath | { reason: string };
  try {
    file = await packageFile(manager, cwd, workspace);
  } catch {
    return { reason: 'a package.json on the way leads outside the workspace' };
  }
  if ('reason' in file) return file;
  let manifest: unknown;
  try {
    const text = await savedText(workspace, file);
    if (text === undefined) return { reason: `${file.relative} is too large to show` };
    manifest = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { reason: `${file.relative} could not be read as JSON` };
  }
  const table = (manifest as { scripts?: unknown } | null)?.scripts;
  const scriptText = (name: string) => {
    const text = typeof table === 'object' && table !== null && Object.prototype.hasOwnProperty.call(table, name) ? (table as Record<string, unknown>)[name] : undefined;
    return typeof text === 'string' ? text : undefined;
  };
  const scripts: { name: string; text: string }[] = [];
  for (const name of [`pre${script}`, script, `post${script}`]) {
    const text = scriptText(name);
    if (text !== undefined) scripts.push({ name, text });
  }
  if (!scripts.some((s) => s.name === script)) return { reason: `${file.relative} has no "${script}" script, so ${manager} would run something else or fail` };
  // A script that runs another (`npm run build && mocha`) runs that one too, with its pre and post scripts.
  for (let i = 0; i < scripts.length && scripts.length < MAX_SCRIPTS; i++) {
    for (const name of scriptsCalledBy(scripts[i].text)) {
      for (const each of [`pre${name}`, name, `post${name}`]) {
        const text = scriptText(each);
        if (text !== undefined && !scripts.some((s) => s.name === each)) scripts.push({ name: each, text });
      }
    }
  }
  const found = await packageManagerFiles(manager, parentOf(file.absolute), cwd.folder, workspace);
  if ('reason' in found) return found;
  const fields = await runningFields(file, manifest, cwd.folder, workspace);
  if ('reason' in fields) return fields;
  return { file: file.relative, scripts, settings: found.settings, code: found.code, fields: fields.fields };
}

/** The fields of a manifest that choose what runs, as the card shows them. */
function fieldsOf(manifest: unknown, where: string): { name: string; value: string }[] {
  if (typeof manifest !== 'object' || manifest === null) return [];
  return RUNNING_FIELDS.filter((name) => Object.prototype.hasOwnProperty.call(manifest, name)).map((name) => ({ name: where ? `${name} (in ${where})` : name, value: JSON.stringify((manifest as Record<string, unknown>)[name]) }));
}

/**
 * Those fields of the package's package.json, then of each package.json above it up to the
 * workspace folder: a workspace root's `packageManager`, `pnpm` settings and `devEngines` apply to
 * its packages' scripts too.
 */
async function runningFields(file: ResolvedPath, manifest: unknown, folder: string, workspace: Workspace): Promise<{ fields: { name: string; value: string }[] } | { reason: string }> {
  const fields = fieldsOf(manifest, '');
  for (let dir = parentOf(file.absolute); dir !== folder && parentOf(dir) && parentOf(dir) !== dir; ) {
    dir = parentOf(dir);
    try {
      const above = await existing(workspace, childOf(dir, 'package.json'));
      const text = above && (await savedText(workspace, above));
      if (above && text === undefined) return { reason: `${above.relative} is too large to show` };
      if (above && text !== undefined) fields.push(...fieldsOf(JSON.parse(text.replace(/^\uFEFF/, '')), above.relative));
    } catch {
      return { reason: 'a package.json above the package could not be read as JSON inside the workspace' };
    }
  }
  return { fields };
}
