import { stringArg } from '../../core/tools/args';
import { approved, deniedOutput } from '../../core/tools/approval';
import { unifiedDiff } from '../../core/tools/diff';
import type { Tool } from '../../core/tools/types';
import { readResolved, resolveInWorkspace, writeResolved } from './workspacePaths';

export const writeFileTool: Tool = {
  definition: {
    name: 'write_file',
    description: 'Create or overwrite a file in the workspace with the given content (asks the user first).',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    source: 'builtin',
  },
  async execute(args, ctx) {
    const input = stringArg(args, 'path', true);
    const path = await resolveInWorkspace(input, ctx.workspace, { mustExist: false });
    const content = stringArg(args, 'content', true);
    const before = await readResolved(path).then((bytes) => bytes.toString('utf8'), () => undefined);
    const { diff, added, removed } = unifiedDiff(path.relative, before ?? '', content);
    const title = `${before === undefined ? 'Create' : 'Overwrite'} ${path.relative} (+${added} −${removed})`;
    if (!(await approved(ctx, { toolName: 'write_file', title, detail: diff, kind: 'edit', target: path.absolute }))) return deniedOutput(`writing ${path.relative}`);
    await writeResolved(input, ctx.workspace, path, content);
    return { output: `${before === undefined ? 'Created' : 'Wrote'} ${path.relative} (${Buffer.byteLength(content)} bytes, +${added} −${removed} lines).` };
  },
};
