import { promises as fsp } from 'fs';
import { isInside } from '../insideFolder';
import { errorCode, outsideWorkspaceReason, readPrefix, statFailureReason, statIfPresent } from './promptFiles';
import { ownFolderDepth, type IgnoreFiles } from './projectFolders';
import { dirname, join, relative, resolve, sep } from 'path';
import type { InstructionPart } from '../../core/prompt/promptSections';

export const INSTRUCTIONS_CAP_BYTES = 32 * 1024;
const FILE_NAME = 'AGENTS.md';

export interface InstructionFile {
  path: string;
  bytes: number;
  status: 'loaded' | 'cut' | 'skipped';
  reason?: string;
  /** Why a nested file was looked for: the active file or a path the agent worked on is below its folder. */
  because?: string;
}

export interface InstructionsReport {
  files: InstructionFile[];
  /** Each loaded file's text on its own, root → leaf, for the prompt (nested files follow the active file). */
  parts: InstructionPart[];
  /** The merged text, root → leaf, each part headed by its path; empty when nothing loaded. */
  text: string;
}

/** File access the loader needs; tests and the CLI use node's fs, and so does the extension for local folders. */
export interface InstructionsFs {
  /** undefined when nothing is there; throws for anything else (a link loop: ELOOP, a dangling link: ENOENT). */
  stat(path: string): Promise<{ isFile: boolean; size: number } | undefined>;
  readPrefix(path: string, maxBytes: number): Promise<Uint8Array>;
  realPath(path: string): Promise<string>;
}

export const nodeInstructionsFs: InstructionsFs = {
  stat: statIfPresent,
  readPrefix,
  realPath: (path) => fsp.realpath(path),
};

const ACTIVE_FILE = 'the active file is below it';
const AGENT_WORKED_HERE = 'the agent worked in this folder';

/**
 * AGENTS.md files in a fixed order: the user's own file, then for each workspace folder
 * (in folder order) its root file and the nested ones from that root down to the active file's
 * folder and to each path the agent read, edited, listed or searched. Merged root → leaf, capped at 32 KiB with a marker. An untrusted workspace contributes
 * nothing; binary, unreadable and looping files, and workspace files that are links leading out of
 * their workspace folder, are skipped with the reason.
 */
export async function loadInstructions(args: {
  fs?: InstructionsFs;
  userFile?: string;
  workspaceFolders: string[];
  activeFile?: string;
  /** Files and folders the agent's tools read, edited, listed or searched (real paths). */
  touchedPaths?: readonly string[];
  trusted: boolean;
  capBytes?: number;
}): Promise<InstructionsReport> {
  const fs = args.fs ?? nodeInstructionsFs;
  const cap = args.capBytes ?? INSTRUCTIONS_CAP_BYTES;
  const candidates: Array<{ path: string; label: string; workspace: boolean; folder?: string; nested?: boolean; because?: string }> = [];
  if (args.userFile) candidates.push({ path: args.userFile, label: '~/' + FILE_NAME, workspace: false });
  for (const folder of args.workspaceFolders.map((f) => resolve(f))) {
    candidates.push({ path: join(folder, FILE_NAME), label: `${folder.split(sep).pop()}/${FILE_NAME}`, workspace: true, folder });
    for (const nested of await nestedFolders(fs, folder, args.activeFile, args.touchedPaths ?? [])) {
      candidates.push({ path: join(folder, ...nested.parts, FILE_NAME), label: `${folder.split(sep).pop()}/${nested.parts.join('/')}/${FILE_NAME}`, workspace: true, folder, nested: true, because: nested.because });
    }
  }
  const files: InstructionFile[] = [];
  const parts: string[] = [];
  const fileParts: InstructionPart[] = [];
  const seen = new Set<string>();
  let used = 0;
  for (const candidate of candidates) {
    let stat: { isFile: boolean; size: number } | undefined;
    try {
      stat = await fs.stat(candidate.path);
    } catch (error) {
      const reason = candidate.workspace && !args.trusted ? 'the workspace is not trusted' : statFailureReason(error);
      files.push({ path: candidate.path, bytes: 0, status: 'skipped', reason });
      continue;
    }
    if (!stat) continue;
    const skip = (reason: string) => files.push({ path: candidate.path, bytes: stat.size, status: 'skipped', reason, ...(candidate.because ? { because: candidate.because } : {}) });
    if (!stat.isFile) {
      skip('not a regular file');
      continue;
    }
    if (candidate.workspace && !args.trusted) {
      skip('the workspace is not trusted');
      continue;
    }
    let real: string;
    try {
      real = await fs.realPath(candidate.path);
    } catch (error) {
      skip(`cannot resolve (${errorCode(error)})`);
      continue;
    }
    // The user's own file may lead anywhere (their choice); a workspace's may not leave its folder.
    const outside = candidate.folder ? await outsideWorkspaceReason(fs.realPath, candidate.folder, candidate.path).catch((error) => `cannot resolve (${errorCode(error)})`) : undefined;
    if (outside) {
      skip(outside);
      continue;
    }
    if (seen.has(real)) {
      skip('already loaded (the same file through a link)');
      continue;
    }
    seen.add(real);
    const room = cap - used;
    if (room <= 0) {
      skip('the 32 KiB cap was reached');
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await fs.readPrefix(real, Math.min(room, stat.size));
    } catch (error) {
      skip(`unreadable (${errorCode(error)})`);
      continue;
    }
    if (bytes.includes(0)) {
      skip('binary file');
      continue;
    }
    // Never end inside a UTF-8 character.
    let end = bytes.length;
    if (stat.size > bytes.length) while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
    const text = Buffer.from(bytes.subarray(0, end)).toString('utf8');
    const cut = stat.size > end;
    const body = `${text.trimEnd()}${cut ? `\n[… ${candidate.label} cut at the 32 KiB instructions cap: ${stat.size - end} bytes not loaded …]` : ''}`;
    parts.push(`## ${candidate.label}\n${body}`);
    fileParts.push({ path: candidate.path, label: candidate.label, text: body, followsActiveFile: Boolean(candidate.nested), ...(candidate.because ? { because: candidate.because } : {}) });
    used += end;
    files.push({ path: candidate.path, bytes: stat.size, status: cut ? 'cut' : 'loaded', ...(candidate.because ? { because: candidate.because } : {}) });
  }
  return { files, parts: fileParts, text: parts.join('\n\n') };
}

/**
 * The folders below a workspace folder whose AGENTS.md applies, parents before children: those on
 * the way to the active file's folder, and to each path the agent touched (a touched folder
 * included; for a file, its AGENTS.md "inside" it is simply absent), as far as they are the
 * project's own (never inside node_modules, vendored packages, .git or a folder git ignores).
 * Touched paths are real paths, so they are also matched against the folder's real path.
 */
async function nestedFolders(fs: InstructionsFs, folder: string, activeFile: string | undefined, touched: readonly string[]): Promise<Array<{ parts: string[]; because: string }>> {
  const found = new Map<string, { parts: string[]; because: string }>();
  const ignoreFiles: IgnoreFiles = new Map();
  const add = async (root: string, path: string, because: string) => {
    const all = relative(root, path).split(sep).filter(Boolean);
    const parts = all.slice(0, await ownFolderDepth(fs, root, all, ignoreFiles));
    for (let i = 1; i <= parts.length; i++) {
      const key = parts.slice(0, i).join('/');
      if (!found.has(key)) found.set(key, { parts: parts.slice(0, i), because });
    }
  };
  if (activeFile && isInside(folder, resolve(activeFile))) await add(folder, dirname(resolve(activeFile)), ACTIVE_FILE);
  if (touched.length) {
    const realFolder = await fs.realPath(folder).catch(() => folder);
    for (const path of touched.map((p) => resolve(p))) {
      if (isInside(folder, path)) await add(folder, path, AGENT_WORKED_HERE);
      else if (isInside(realFolder, path)) await add(realFolder, path, AGENT_WORKED_HERE);
    }
  }
  return [...found.values()].sort((a, b) => compareParts(a.parts, b.parts));
}

function compareParts(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}
