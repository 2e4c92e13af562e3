import { looksBinary } from '../../toolOutput/binary';
import { intArg, stringArg } from '../args';
import { hardLinkedReadReason } from '../hardLinks';
import type { Tool } from '../types';
import { builtinDefinition, utf8 } from './text';

export const readFileTool: Tool = {
  definition: builtinDefinition(
    'read_file',
    'Read a text file in the workspace, optionally a range of lines (1-based, inclusive). Lines are numbered.',
    { path: { type: 'string' }, start_line: { type: 'integer', minimum: 1 }, end_line: { type: 'integer', minimum: 1 } },
    ['path'],
  ),
  approval: 'read',
  async execute(args, ctx) {
    const path = await ctx.workspace.resolve(stringArg(args, 'path', true), { mustExist: true });
    if ((await ctx.workspace.kind(path)) === 'directory') return { output: `${path.relative} is a directory; use list_files.`, isError: true };
    const { bytes, size, links } = await ctx.workspace.readFile(path, ctx.limits.maxReadBytes);
    if (links > 1) {
      const reason = hardLinkedReadReason(path.relative, links);
      await ctx.approve({ title: `Read ${path.relative} — ${reason}`, reason, target: path.absolute }, `reading ${path.relative}`);
    }
    if (looksBinary(bytes)) return { output: `${path.relative} is a binary file (${size} bytes); not shown.`, isError: true };
    const lines = utf8(bytes).split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const start = intArg(args, 'start_line', { min: 1, max: 10_000_000 }) ?? 1;
    const end = Math.min(intArg(args, 'end_line', { min: 1, max: 10_000_000 }) ?? lines.length, lines.length);
    if (start > lines.length && lines.length > 0) return { output: `${path.relative} has ${lines.length} lines; start_line ${start} is past the end.`, isError: true };
    const width = String(end).length;
    const body = lines.slice(start - 1, end).map((line, i) => `${String(start + i).padStart(width)}  ${line}`).join('\n');
    const cut = size > bytes.length ? ` — only the first ${bytes.length} of ${size} bytes were read` : '';
    return { output: `${path.relative} (lines ${start}–${end} of ${lines.length}${cut})\n${body}` };
  },
};
