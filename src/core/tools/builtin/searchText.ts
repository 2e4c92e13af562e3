import { boolArg, intArg, stringArg } from '../args';
import { ToolInputError, type Tool } from '../types';
import { builtinDefinition } from './text';

export const searchTextTool: Tool = {
  definition: builtinDefinition(
    'search_text',
    'Search text files in the workspace for a literal string (or a regular expression with is_regex). Returns path:line: text.',
    { query: { type: 'string' }, path: { type: 'string' }, is_regex: { type: 'boolean' }, case_sensitive: { type: 'boolean' }, max_results: { type: 'integer', minimum: 1, maximum: 500 } },
    ['query'],
  ),
  approval: 'read',
  async execute(args, ctx) {
    const query = stringArg(args, 'query', true);
    const root = await ctx.workspace.resolve(stringArg(args, 'path') ?? '.', { mustExist: true });
    const max = intArg(args, 'max_results', { min: 1, max: 500 }) ?? 100;
    const flags = boolArg(args, 'case_sensitive') ? '' : 'i';
    let pattern: RegExp;
    try {
      pattern = new RegExp(boolArg(args, 'is_regex') ? query : query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
    } catch (error) {
      throw new ToolInputError(`invalid regular expression: ${(error as Error).message}`);
    }
    const hits = await ctx.workspace.search(root, pattern, { maxResults: max, untrusted: boolArg(args, 'is_regex'), signal: ctx.signal });
    if (hits.length === 0) return { output: `No matches for ${JSON.stringify(query)}.` };
    const results = hits.map((h) => `${h.path}:${h.line}: ${h.text.trim().slice(0, 200)}`);
    return { output: results.join('\n') + (results.length >= max ? `\n[stopped at ${max} results]` : '') };
  },
};
