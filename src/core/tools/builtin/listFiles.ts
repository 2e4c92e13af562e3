import { intArg, stringArg } from '../args';
import type { Tool } from '../types';
import { builtinDefinition } from './text';

/** Folders no listing or search walks into. */
export const IGNORED_DIRECTORIES = new Set(['.git', 'node_modules', '.hg', '.svn', 'dist', 'out', '.vscode-test', '__pycache__', '.venv']);
const MAX_ENTRIES = 500;

export const listFilesTool: Tool = {
  definition: builtinDefinition(
    'list_files',
    'List files and folders under a workspace path (default: the workspace root), to a depth (default 2). Folders end with "/", symbolic links (not followed) with "@". .git, node_modules and build output are skipped.',
    { path: { type: 'string' }, depth: { type: 'integer', minimum: 1, maximum: 5 } },
  ),
  approval: 'read',
  async execute(args, ctx) {
    const root = await ctx.workspace.resolve(stringArg(args, 'path') ?? '.', { mustExist: true });
    const depth = intArg(args, 'depth', { min: 1, max: 5 }) ?? 2;
    const lines: string[] = [];
    let more = 0;
    const skipped = new Set<string>();
    const walk = async (dir: string, prefix: string, level: number): Promise<void> => {
      for (const entry of await ctx.workspace.list(dir)) {
        if (ctx.signal.aborted) return;
        const isDir = entry.kind === 'directory';
        if (isDir && IGNORED_DIRECTORIES.has(entry.name)) {
          skipped.add(entry.name);
          continue;
        }
        if (lines.length >= MAX_ENTRIES) {
          more++;
          continue;
        }
        lines.push(`${prefix}${entry.name}${isDir ? '/' : entry.kind === 'symlink' ? '@' : ''}`);
        if (isDir && level < depth) await walk(`${dir}/${entry.name}`, `${prefix}${entry.name}/`, level + 1);
      }
    };
    await walk(root.absolute, root.relative === '.' ? '' : `${root.relative}/`, 1);
    if (more) lines.push(`… ${more} more entries`);
    if (skipped.size) lines.push(`(skipped: ${[...skipped].sort().join(', ')})`);
    return { output: lines.length ? lines.join('\n') : '(empty)' };
  },
};
