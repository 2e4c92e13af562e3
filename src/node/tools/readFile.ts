import { looksBinary } from '../../core/toolOutput/binary';
import { intArg, stringArg } from '../../core/tools/args';
import type { Tool } from '../../core/tools/types';
import { openResolvedForRead, resolveInWorkspace } from './workspacePaths';

export const readFileTool: Tool = {
  definition: {
    name: 'read_file',
    description: 'Read a text file in the workspace, optionally a range of lines (1-based, inclusive). Lines are numbered.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, start_line: { type: 'integer', minimum: 1 }, end_line: { type: 'integer', minimum: 1 } }, required: ['path'] },
    source: 'builtin',
  },
  async execute(args, ctx) {
    const path = await resolveInWorkspace(stringArg(args, 'path', true), ctx.workspace, { mustExist: true });
    const { handle, stat } = await openResolvedForRead(path);
    let bytes: Buffer;
    try {
      if (stat.isDirectory()) return { output: `${path.relative} is a directory; use list_files.`, isError: true };
      bytes = Buffer.alloc(Math.min(stat.size, ctx.limits.maxReadBytes));
      await handle.read(bytes, 0, bytes.length, 0);
    } finally {
      await handle.close();
    }
    if (looksBinary(bytes)) return { output: `${path.relative} is a binary file (${stat.size} bytes); not shown.`, isError: true };
    const lines = bytes.toString('utf8').split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const start = intArg(args, 'start_line', { min: 1, max: 10_000_000 }) ?? 1;
    const end = Math.min(intArg(args, 'end_line', { min: 1, max: 10_000_000 }) ?? lines.length, lines.length);
    if (start > lines.length && lines.length > 0) return { output: `${path.relative} has ${lines.length} lines; start_line ${start} is past the end.`, isError: true };
    const width = String(end).length;
    const body = lines.slice(start - 1, end).map((line, i) => `${String(start + i).padStart(width)}  ${line}`).join('\n');
    const cut = stat.size > bytes.length ? ` — only the first ${bytes.length} of ${stat.size} bytes were read` : '';
    return { output: `${path.relative} (lines ${start}–${end} of ${lines.length}${cut})\n${body}` };
  },
};
