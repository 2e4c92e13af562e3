import { looksBinary } from '../../core/toolOutput/binary';
import { boolArg, stringArg } from '../../core/tools/args';
import { approved, deniedOutput } from '../../core/tools/approval';
import { unifiedDiff } from '../../core/tools/diff';
import { ToolInputError, type Tool } from '../../core/tools/types';
import { readResolved, resolveInWorkspace, writeResolved } from './workspacePaths';

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

export const editFileTool: Tool = {
  definition: {
    name: 'edit_file',
    description: 'Replace an exact piece of text in a file (asks the user first). old_text must match exactly once unless replace_all is true.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, old_text: { type: 'string' }, new_text: { type: 'string' }, replace_all: { type: 'boolean' } }, required: ['path', 'old_text', 'new_text'] },
    source: 'builtin',
  },
  async execute(args, ctx) {
    const input = stringArg(args, 'path', true);
    const path = await resolveInWorkspace(input, ctx.workspace, { mustExist: true });
    const oldText = stringArg(args, 'old_text', true);
    const newText = stringArg(args, 'new_text', true);
    if (oldText === '') throw new ToolInputError('old_text must not be empty; use write_file to create a file');
    const bytes = await readResolved(path);
    if (looksBinary(bytes)) throw new ToolInputError(`${path.relative} is a binary file`);
    const original = bytes.toString('utf8');
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
    if (!(await approved(ctx, { toolName: 'edit_file', title: `Edit ${path.relative} (+${added} −${removed})`, detail: diff, kind: 'edit', target: path.absolute }))) return deniedOutput(`editing ${path.relative}`);
    await writeResolved(input, ctx.workspace, path, updated);
    return { output: `Edited ${path.relative}: ${positions.length > 1 ? `${positions.length} replacements` : `1 replacement at line ${lineOf(original, positions[0])}`} (+${added} −${removed} lines).` };
  },
};
