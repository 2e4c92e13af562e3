import { promises as fsp } from 'fs';
import { join, relative } from 'path';
import { looksBinary } from '../toolOutput/binary';
import { boolArg, intArg, stringArg } from './args';
import { IGNORED_DIRECTORIES } from './listFiles';
import { ToolInputError, type Tool } from './types';
import { resolveInWorkspace } from './workspacePaths';

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 20_000;

export const searchTextTool: Tool = {
  definition: {
    name: 'search_text',
    description: 'Search text files in the workspace for a literal string (or a regular expression with is_regex). Returns path:line: text.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, path: { type: 'string' }, is_regex: { type: 'boolean' }, case_sensitive: { type: 'boolean' }, max_results: { type: 'integer', minimum: 1, maximum: 500 } },
      required: ['query'],
    },
    source: 'builtin',
  },
  async execute(args, ctx) {
    const query = stringArg(args, 'query', true);
    const root = await resolveInWorkspace(stringArg(args, 'path') ?? '.', ctx.workspace, { mustExist: true });
    const max = intArg(args, 'max_results', { min: 1, max: 500 }) ?? 100;
    const flags = boolArg(args, 'case_sensitive') ? '' : 'i';
    let pattern: RegExp;
    try {
      pattern = new RegExp(boolArg(args, 'is_regex') ? query : query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
    } catch (error) {
      throw new ToolInputError(`invalid regular expression: ${(error as Error).message}`);
    }
    const results: string[] = [];
    let scanned = 0;
    const walk = async (dir: string): Promise<void> => {
      for (const entry of (await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name))) {
        if (results.length >= max || scanned >= MAX_FILES || ctx.signal.aborted) return;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!IGNORED_DIRECTORIES.has(entry.name)) await walk(path);
          continue;
        }
        if (entry.isFile()) await searchFile(path);
      }
    };
    const searchFile = async (path: string): Promise<void> => {
      const stat = await fsp.stat(path).catch(() => undefined);
      if (!stat || stat.size > MAX_FILE_BYTES) return;
      scanned++;
      const bytes = await fsp.readFile(path).catch(() => undefined);
      if (!bytes || looksBinary(bytes)) return;
      const lines = bytes.toString('utf8').split(/\r?\n/);
      for (let i = 0; i < lines.length && results.length < max; i++) {
        if (pattern.test(lines[i])) results.push(`${relative(root.folder, path).split('\\').join('/')}:${i + 1}: ${lines[i].trim().slice(0, 200)}`);
      }
    };
    if ((await fsp.stat(root.absolute)).isDirectory()) await walk(root.absolute);
    else await searchFile(root.absolute);
    if (results.length === 0) return { output: `No matches for ${JSON.stringify(query)}.` };
    return { output: results.join('\n') + (results.length >= max ? `\n[stopped at ${max} results]` : '') };
  },
};
