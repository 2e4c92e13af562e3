import { promises as fsp } from 'fs';
import { dirname } from 'path';
import { stringArg } from './args';
import { approved, deniedOutput } from './approval';
import { unifiedDiff } from './diff';
import type { Tool } from './types';
import { resolveInWorkspace } from './workspacePaths';

export const writeFileTool: Tool = {
  definition: {
    name: 'write_file',
    description: 'Create or overwrite a file in the workspace with the given content (asks the user first).',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    source: 'builtin',
  },
  async execute(args, ctx) {
    const path = await resolveInWorkspace(stringArg(args, 'path', true), ctx.workspace, { mustExist: false });
    const content = stringArg(args, 'content', true);
    const before = await fsp.readFile(path.absolute, 'utf8').catch(() => undefined);
    const { diff, added, removed } = unifiedDiff(path.relative, before ?? '', content);
    const title = `${before === undefined ? 'Create' : 'Overwrite'} ${path.relative} (+${added} −${removed})`;
    if (!(await approved(ctx, { toolName: 'write_file', title, detail: diff, kind: 'edit' }))) return deniedOutput(`writing ${path.relative}`);
    await fsp.mkdir(dirname(path.absolute), { recursive: true });
    await fsp.writeFile(path.absolute, content, 'utf8');
    return { output: `${before === undefined ? 'Created' : 'Wrote'} ${path.relative} (${Buffer.byteLength(content)} bytes, +${added} −${removed} lines).` };
  },
};
