import { looksBinary } from '../../toolOutput/binary';
import { intArg, stringArg } from '../args';
import { hardLinkedReadReason } from '../hardLinks';
import type { Tool } from '../types';
import { builtinDefinition, utf8 } from './text';
import { ImageFormatError, imageTypeOfName, readImageHeader } from '../../images/imageHeader';
import { formatName, MAX_IMAGE_BYTES } from '../../images/imagePart';
import type { ToolOutput } from '../types';

/** An image file read: a line about it, and the image itself, which the model sees after the response's results. */
function imageRead(relative: string, bytes: Uint8Array, size: number): ToolOutput {
  if (size > bytes.length) return { output: `${relative} is an image of ${size} bytes; images up to ${MAX_IMAGE_BYTES} bytes can be read.`, isError: true };
  try {
    const header = readImageHeader(bytes);
    const label = relative.slice(relative.lastIndexOf('/') + 1);
    return { output: `${relative}: ${formatName(header.mediaType)} image, ${header.width}×${header.height} pixels, ${size} bytes; the image follows.`, images: [{ bytes, origin: 'tool', label, path: relative }] };
  } catch (error) {
    if (error instanceof ImageFormatError) return { output: `${relative} is not an image that can be read: ${error.message}.`, isError: true };
    throw error;
  }
}

export const readFileTool: Tool = {
  definition: builtinDefinition(
    'read_file',
    'Read a text file in the workspace, optionally a range of lines (1-based, inclusive). Lines are numbered. A PNG, JPEG, GIF or WebP file is returned as the image itself.',
    { path: { type: 'string' }, start_line: { type: 'integer', minimum: 1 }, end_line: { type: 'integer', minimum: 1 } },
    ['path'],
  ),
  approval: 'read',
  async execute(args, ctx) {
    const path = await ctx.workspace.resolve(stringArg(args, 'path', true), { mustExist: true });
    if ((await ctx.workspace.kind(path)) === 'directory') return { output: `${path.relative} is a directory; use list_files.`, isError: true };
    const image = imageTypeOfName(path.relative) !== undefined;
    const { bytes, size, links } = await ctx.workspace.readFile(path, image ? MAX_IMAGE_BYTES : ctx.limits.maxReadBytes);
    if (links > 1) {
      const reason = hardLinkedReadReason(path.relative, links);
      await ctx.approve({ title: `Read ${path.relative} — ${reason}`, reason, target: path.absolute }, `reading ${path.relative}`);
    }
    if (image) return imageRead(path.relative, bytes, size);
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
