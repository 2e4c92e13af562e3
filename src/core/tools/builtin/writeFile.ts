import { stringArg } from '../args';
import { unifiedDiff } from '../diff';
import { hardLinkedWriteRefusal } from '../hardLinks';
import { ToolInputError, type Tool } from '../types';
import { builtinDefinition, utf8, utf8Length } from './text';

export const writeFileTool: Tool = {
  definition: builtinDefinition(
    'write_file',
    'Create or overwrite a file in the workspace with the given content (asks the user first).',
    { path: { type: 'string' }, content: { type: 'string' } },
    ['path', 'content'],
  ),
  approval: 'edit',
  async execute(args, ctx) {
    const input = stringArg(args, 'path', true);
    const path = await ctx.workspace.resolve(input, { mustExist: false });
    const content = stringArg(args, 'content', true);
    const current = await ctx.workspace.readFile(path, Number.MAX_SAFE_INTEGER).catch(() => undefined);
    if (current && current.links > 1) throw new ToolInputError(hardLinkedWriteRefusal(path.relative, current.links));
    const before = current && utf8(current.bytes);
    const { diff, added, removed } = unifiedDiff(path.relative, before ?? '', content);
    const title = `${before === undefined ? 'Create' : 'Overwrite'} ${path.relative} (+${added} −${removed})`;
    await ctx.approve({ title, detail: diff, target: path.absolute, preview: { before: before ?? '', after: content } }, `writing ${path.relative}`);
    const note = await ctx.workspace.writeFile(input, path, content, before);
    return { output: `${before === undefined ? 'Created' : 'Wrote'} ${path.relative} (${utf8Length(content)} bytes, +${added} −${removed} lines).${note ? ` ${note}` : ''}` };
  },
};
