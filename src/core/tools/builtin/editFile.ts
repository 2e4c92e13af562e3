import { looksBinary } from '../../toolOutput/binary';
import { boolArg, stringArg } from '../args';
import { unifiedDiff } from '../diff';
import { hardLinkedWriteRefusal } from '../hardLinks';
import { ToolInputError, type Tool } from '../types';
import { builtinDefinition, lineOf, utf8 } from './text';

export const editFileTool: Tool = {
  definition: builtinDefinition(
    'edit_file',
    'Replace an exact piece of text in a file (asks the user first). old_text must match exactly once unless replace_all is true.',
    { path: { type: 'string' }, old_text: { type: 'string' }, new_text: { type: 'string' }, replace_all: { type: 'boolean' } },
    ['path', 'old_text', 'new_text'],
  ),
  approval: 'edit',
  async execute(args, ctx) {
    const input = stringArg(args, 'path', true);
    const path = await ctx.workspace.resolve(input, { mustExist: true });
    const oldText = stringArg(args, 'old_text', true);
    const newText = stringArg(args, 'new_text', true);
    if (oldText === '') throw new ToolInputError('old_text must not be empty; use write_file to create a file');
    const { bytes, links } = await ctx.workspace.readFile(path, Number.MAX_SAFE_INTEGER);
    if (links > 1) throw new ToolInputError(hardLinkedWriteRefusal(path.relative, links));
    if (looksBinary(bytes)) throw new ToolInputError(`${path.relative} is a binary file`);
    const original = utf8(bytes);
    // Match with the file's own line endings: the model usually writes \n.
    const crlf = original.includes('\r\n');
    const target = crlf ? oldText.replace(/\r?\n/g, '\r\n') : oldText;
    const replacement = crlf ? newText.replace(/\r?\n/g, '\r\n') : newText;
    const positions: number[] = [];
    for (let i = original.indexOf(target); i !== -1; i = original.indexOf(target, i + 1)) positions.push(i);
    if (positions.length === 0) throw new ToolInputError(`old_text was not found in ${path.relative}; read the file with read_file and copy the text exactly`);
    if (positions.length > 1 && !boolArg(args, 'replace_all')) {
      throw new ToolInputError(`old_text matches ${positions.length} places in ${path.relative} (lines ${positions.map((p) => lineOf(original, p)).join(', ')}); add surrounding lines to make it unique, or set replace_all`);
    }
    const updated = boolArg(args, 'replace_all') ? original.split(target).join(replacement) : original.replace(target, () => replacement);
    const { diff, added, removed } = unifiedDiff(path.relative, original.replace(/\r\n/g, '\n'), updated.replace(/\r\n/g, '\n'));
    await ctx.approve({ title: `Edit ${path.relative} (+${added} −${removed})`, detail: diff, target: path.absolute, preview: { before: original, after: updated } }, `editing ${path.relative}`);
    const note = await ctx.workspace.writeFile(input, path, updated, original);
    return { output: `Edited ${path.relative}: ${positions.length > 1 ? `${positions.length} replacements` : `1 replacement at line ${lineOf(original, positions[0])}`} (+${added} −${removed} lines).${note ? ` ${note}` : ''}` };
  },
};
