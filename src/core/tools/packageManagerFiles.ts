import type { ResolvedPath, Workspace } from '../ports/workspace';
import type { PackageManager } from './commandRules';
import { settingsPaths } from './settingsPaths';

/**
 * What a package manager reads, besides the scripts themselves, that changes what a script run
 * runs: its settings files (`.npmrc`, `pnpm-workspace.yaml` with `nodeOptions`, `.yarnrc.yml`
 * with `yarnPath` and plugins, yarn's `.env.yarn`), the code it loads on its own (`.pnpmfile.cjs`,
 * Plug'n'Play's `.pnp.cjs`), and every file those settings name by a path (the `yarnPath`
 * release, `--require ./setup.cjs`). The card names them all; settings are bound by their text,
 * code by its SHA-256 (a release is megabytes). An allowance ends when any of it changes, appears
 * or goes. A path the settings name outside the workspace is the user's own machine (`/bin/bash`
 * as the script shell): it is not bound.
 */
export interface PackageManagerFiles {
  /** Settings files, relative to their workspace folder, with their text. */
  settings: { file: string; text: string }[];
  /** Code files, with the SHA-256 of their content, or `absent` for a named file that does not exist (yet). */
  code: { file: string; sha256: string; why: string }[];
}

/** Settings files each manager reads, in the package's folder and each folder above it (the npm and pnpm workspace roots, yarn's project). */
const SETTINGS_FILES: Record<PackageManager, string[]> = {
  npm: ['.npmrc'],
  pnpm: ['.npmrc', 'pnpm-workspace.yaml'],
  yarn: ['.npmrc', '.yarnrc', '.yarnrc.yml', '.env.yarn'],
};
/** Version managers' files that pick the Node.js (or a local build of it: `nodejs path:./x`) every manager's scripts run with. */
const TOOLCHAIN_FILES = ['.tool-versions', '.node-version', '.nvmrc', 'mise.toml', '.mise.toml'];
/** What node tries for `--require PATH` besides PATH itself: the extensions it adds, and a folder's entry points. */
const NODE_EXTENSIONS = ['.js', '.cjs', '.mjs', '.json', '.node'];
const FOLDER_ENTRIES = ['package.json', ...NODE_EXTENSIONS.map((ext) => `index${ext}`)];

/** Code each manager loads by itself from those folders. */
const CODE_FILES: Record<PackageManager, { name: string; why: string }[]> = {
  npm: [],
  pnpm: [
    { name: '.pnpmfile.cjs', why: 'pnpm loads it as code' },
    { name: '.pnpmfile.mjs', why: 'pnpm loads it as code' },
    { name: '.pnp.cjs', why: "Plug'n'Play: loaded into every script" },
    { name: '.pnp.loader.mjs', why: "Plug'n'Play: loaded into every script" },
  ],
  yarn: [
    { name: '.pnp.cjs', why: "Plug'n'Play: yarn loads it into every script" },
    { name: '.pnp.js', why: "Plug'n'Play: yarn loads it into every script" },
    { name: '.pnp.loader.mjs', why: "Plug'n'Play: yarn loads it into every script" },
    { name: '.pnp.data.json', why: "Plug'n'Play's package map" },
  ],
};

/** npm settings that make it read another settings file the card would not show. */
const OTHER_SETTINGS_FILES = /^\s*(userconfig|globalconfig|prefix|globalpnpmfile|global-pnpmfile)\s*[=:]/im;

const MAX_SETTINGS_BYTES = 1024 * 1024;
const MAX_CODE_BYTES = 64 * 1024 * 1024;

const parentOf = (dir: string) => dir.slice(0, Math.max(dir.lastIndexOf('/'), dir.lastIndexOf('\\')));
const childOf = (dir: string, name: string) => `${dir.replace(/[\\/]$/, '')}/${name}`;

async function kindOf(workspace: Workspace, absolute: string): Promise<{ path: ResolvedPath; kind: string | undefined }> {
  const path = await workspace.resolve(absolute, { mustExist: false });
  return { path, kind: await workspace.kind(path) };
}

async function settingsText(workspace: Workspace, path: ResolvedPath): Promise<string | { reason: string }> {
  const { bytes, size } = await workspace.readFile(path, MAX_SETTINGS_BYTES, { savedOnly: true });
  if (size > MAX_SETTINGS_BYTES) return { reason: `${path.relative} is too large to show` };
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

async function sha256(workspace: Workspace, path: ResolvedPath): Promise<string | { reason: string }> {
  const { bytes, size } = await workspace.readFile(path, MAX_CODE_BYTES, { savedOnly: true });
  if (size > MAX_CODE_BYTES) return { reason: `${path.relative} is too large to bind the allowance to` };
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The folders from the package's up to the workspace folder, nearest first. */
function foldersUp(from: string, folder: string): string[] {
  const dirs: string[] = [];
  for (let dir = from; ; dir = parentOf(dir)) {
    dirs.push(dir);
    if (dir === folder || !parentOf(dir) || parentOf(dir) === dir) return dirs;
  }
}

/**
 * The files `manager` reads that change what a script in `packageDir` runs, or why they cannot be
 * shown (unreadable, too large, or naming a file outside the workspace).
 */
export async function packageManagerFiles(manager: PackageManager, packageDir: string, folder: string, workspace: Workspace): Promise<PackageManagerFiles | { reason: string }> {
  const settings: PackageManagerFiles['settings'] = [];
  const code = new Map<string, { file: string; sha256: string; why: string }>();
  const bind = async (absolute: string, why: string): Promise<{ reason: string } | undefined> => {
    const { path, kind } = await kindOf(workspace, absolute);
    if (code.has(path.relative) || kind === 'directory') return undefined;
    if (kind === undefined) {
      code.set(path.relative, { file: path.relative, sha256: 'absent', why });
      return undefined;
    }
    if (kind !== 'file') return { reason: `${path.relative}, which ${why}, is not a regular file` };
    const digest = await sha256(workspace, path);
    if (typeof digest !== 'string') return digest;
    code.set(path.relative, { file: path.relative, sha256: digest, why });
    return undefined;
  };
  /** A path the settings name, and what node would load for it instead (`./setup` → `./setup.js`, a folder's `index.js` or `main`). */
  const bindNamed = async (absolute: string, why: string, depth = 0): Promise<{ reason: string } | undefined> => {
    for (const candidate of [absolute, ...NODE_EXTENSIONS.map((ext) => `${absolute}${ext}`)]) {
      const failed = await bind(candidate, why);
      if (failed) return failed;
    }
    const { path, kind } = await kindOf(workspace, absolute);
    if (kind !== 'directory' || depth > 1) return undefined;
    for (const entry of FOLDER_ENTRIES) {
      const failed = await bind(childOf(path.absolute, entry), why);
      if (failed) return failed;
    }
    const manifest = await kindOf(workspace, childOf(path.absolute, 'package.json'));
    if (manifest.kind !== 'file') return undefined;
    const text = await settingsText(workspace, manifest.path);
    let main: unknown;
    try {
      main = typeof text === 'string' ? (JSON.parse(text) as { main?: unknown }).main : undefined;
    } catch {
      main = undefined;
    }
    return typeof main === 'string' && main ? bindNamed(childOf(path.absolute, main), why, depth + 1) : undefined;
  };
  try {
    for (const dir of foldersUp(packageDir, folder)) {
      for (const name of [...SETTINGS_FILES[manager], ...TOOLCHAIN_FILES]) {
        const { path, kind } = await kindOf(workspace, childOf(dir, name));
        if (kind === undefined) continue;
        if (kind !== 'file') return { reason: `${path.relative} is not a regular file` };
        const text = await settingsText(workspace, path);
        if (typeof text !== 'string') return text;
        settings.push({ file: path.relative, text });
        const other = OTHER_SETTINGS_FILES.exec(text);
        if (other) return { reason: `${path.relative} sets ${other[1]}, which makes ${manager} read settings the card cannot show` };
        const named = settingsPaths(text);
        if ('reason' in named) return { reason: `${path.relative}: ${named.reason}` };
        for (const relative of named.relative) {
          // A path in settings is read from the settings file's folder (yarnPath) or the script's (node's --require).
          for (const base of new Set([dir, packageDir])) {
            const failed = await bindNamed(childOf(base, relative), `${path.relative} names`);
            if (failed) return failed;
          }
        }
        for (const absolute of named.absolute) {
          const inside = !absolute.startsWith('~') && (await workspace.resolve(absolute, { mustExist: false }).then(() => true, () => false));
          const failed = inside ? await bindNamed(absolute, `${path.relative} names`) : undefined;
          if (failed) return failed;
        }
      }
      for (const { name, why } of CODE_FILES[manager]) {
        const failed = await bind(childOf(dir, name), why);
        if (failed) return failed;
      }
    }
  } catch {
    return { reason: `a file ${manager} reads leads outside the workspace or could not be read` };
  }
  return { settings, code: [...code.values()] };
}

/** The card's lines for these files, or none: the settings files by name, then the code bound by content. */
export function describePackageManagerFiles(found: PackageManagerFiles): string[] {
  const lines: string[] = [];
  if (found.settings.length) lines.push(`with settings from ${found.settings.map((s) => s.file).join(', ')}`);
  const present = found.code.filter((c) => c.sha256 !== 'absent');
  if (present.length) lines.push('and code it loads, bound by its content:', ...present.map((c) => `  ${c.file} (${c.why})`));
  return lines;
}
