import { promises as fsp } from 'fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'path';
import { ToolInputError, type WorkspaceInfo } from './types';

export interface ResolvedPath {
  absolute: string;
  folder: string;
  relative: string;
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of `path`, or of its nearest existing parent joined with the rest (for new files). */
async function realPathOrParent(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await fsp.realpath(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves a path the model gave to a file inside the workspace folders. Relative paths resolve
 * against the first folder, or against the folder whose name is their first segment (multi-root).
 * `..` escapes, absolute paths outside every folder and symlinks that lead out are refused.
 */
export async function resolveInWorkspace(input: string, workspace: WorkspaceInfo, options: { mustExist: boolean }): Promise<ResolvedPath> {
  if (typeof input !== 'string' || input.trim() === '') throw new ToolInputError('a path is required');
  if (input.includes('\0')) throw new ToolInputError(`the path "${input.replace(/\0/g, '\\0')}" contains a NUL byte`);
  if (workspace.folders.length === 0) throw new ToolInputError('no workspace folder is open');
  const folders = await Promise.all(workspace.folders.map(async (f) => ({ given: resolve(f), real: await fsp.realpath(f).catch(() => resolve(f)) })));
  let candidate: string;
  if (isAbsolute(input)) {
    candidate = resolve(input);
  } else {
    const [first, ...rest] = input.split(/[\\/]/);
    const named = folders.length > 1 ? folders.find((f) => basename(f.given) === first) : undefined;
    candidate = named ? resolve(named.given, ...rest) : resolve(folders[0].given, input);
  }
  const home = folders.find((f) => inside(f.given, candidate));
  if (!home) throw new ToolInputError(`the path "${input}" is outside the workspace folders`);
  const real = await realPathOrParent(candidate);
  const realHome = folders.find((f) => inside(f.real, real));
  if (!realHome) throw new ToolInputError(`the path "${input}" leads outside the workspace folders through a symbolic link`);
  if (options.mustExist) {
    try {
      await fsp.stat(real);
    } catch {
      throw new ToolInputError(`"${input}" does not exist`);
    }
  }
  return { absolute: real, folder: realHome.real, relative: relative(home.given, candidate).split(sep).join('/') || '.' };
}
