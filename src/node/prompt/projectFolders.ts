import { join } from 'path';
import type { InstructionsFs } from './agentsMd';
import { ignoredFolder, parseIgnoreFile, type IgnoreRule } from './gitignoreRules';

/**
 * Folders that are never the project's own: version control, installed and vendored packages,
 * virtual environments and tool caches. Their AGENTS.md files are a dependency's, not the project's.
 */
const NOT_THE_PROJECTS = new Set(
  [
    '.git', '.hg', '.svn', '.jj', 'node_modules', 'bower_components', 'jspm_packages', 'vendor', 'vendors', 'third_party', 'third-party', 'thirdparty',
    '.yarn', '.pnpm-store', '.venv', 'venv', 'site-packages', 'dist-packages', '__pypackages__', 'pods', 'carthage', '.bundle', '.tox', '.nox',
    '.cargo', '.gradle', '.m2', 'elm-stuff', '.dart_tool', '.pub-cache',
  ].map((name) => name.toLowerCase()),
);

const MAX_IGNORE_BYTES = 256 * 1024;

/** The ignore files read while one prompt's instructions are gathered, by path (many touched paths share their folders). */
export type IgnoreFiles = Map<string, Promise<IgnoreRule[]>>;

function ignoreFile(fs: InstructionsFs, path: string, base: string, read: IgnoreFiles): Promise<IgnoreRule[]> {
  let rules = read.get(path);
  if (!rules) read.set(path, (rules = readIgnoreFile(fs, path, base)));
  return rules;
}

async function readIgnoreFile(fs: InstructionsFs, path: string, base: string): Promise<IgnoreRule[]> {
  try {
    const stat = await fs.stat(path);
    if (!stat?.isFile) return [];
    const bytes = await fs.readPrefix(path, Math.min(stat.size, MAX_IGNORE_BYTES));
    return parseIgnoreFile(Buffer.from(bytes).toString('utf8'), base);
  } catch {
    return [];
  }
}

/**
 * How many leading parts of `parts` (folders below the workspace folder `root`) are the project's
 * own: it stops before the first folder that is a dependency's or version control's by its name,
 * or that git ignores (the root's `.git/info/exclude` and the `.gitignore` of the root and of each
 * folder on the way).
 */
export async function ownFolderDepth(fs: InstructionsFs, root: string, parts: readonly string[], read: IgnoreFiles = new Map()): Promise<number> {
  const rules = [...(await ignoreFile(fs, join(root, '.git', 'info', 'exclude'), '', read)), ...(await ignoreFile(fs, join(root, '.gitignore'), '', read))];
  for (let i = 0; i < parts.length; i++) {
    if (NOT_THE_PROJECTS.has(parts[i].toLowerCase())) return i;
    if (ignoredFolder(parts.slice(0, i + 1).join('/'), rules)) return i;
    const base = parts.slice(0, i + 1).join('/');
    rules.push(...(await ignoreFile(fs, join(root, ...parts.slice(0, i + 1), '.gitignore'), base, read)));
  }
  return parts.length;
}
