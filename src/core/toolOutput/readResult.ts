import type { ToolDefinition } from '../model/tool';
import type { BlobStore } from '../ports/blobStore';
import { noResultInSession } from './resultOwnership';

export const READ_RESULT_DEFAULT_LIMIT = 16 * 1024;
export const READ_RESULT_MAX_LIMIT = 64 * 1024;

export const READ_RESULT_TOOL: ToolDefinition = {
  name: 'read_result',
  description: 'Read part of a stored tool result by its ref_id (large outputs are stored in full and referenced in the conversation). Returns the bytes [offset, offset+limit).',
  inputSchema: {
    type: 'object',
    properties: {
      ref_id: { type: 'string', description: 'The ref_id shown where the result was stored.' },
      offset: { type: 'integer', minimum: 0, description: 'Byte offset to start at (default 0).' },
      limit: { type: 'integer', minimum: 1, maximum: READ_RESULT_MAX_LIMIT, description: `Bytes to read (default ${READ_RESULT_DEFAULT_LIMIT}).` },
    },
    required: ['ref_id'],
  },
  source: 'builtin',
  origin: 'session',
};

/** Raw bytes of a slice of a result `sessionId` owns, exactly as stored. */
export async function readResultBytes(store: BlobStore, sessionId: string, refId: string, offset = 0, limit = READ_RESULT_DEFAULT_LIMIT) {
  if (!Number.isInteger(offset) || offset < 0) throw new Error(`offset must be a whole number ≥ 0 (got ${offset})`);
  if (!Number.isInteger(limit) || limit <= 0) throw new Error(`limit must be a whole number > 0 (got ${limit})`);
  const info = await store.getBlobInfo(sessionId, refId);
  if (!info) throw noResultInSession(refId);
  if (offset > info.byteSize) throw new Error(`offset ${offset} is past the end of the result (${info.byteSize} bytes)`);
  return store.readBlob(sessionId, refId, offset, Math.min(limit, READ_RESULT_MAX_LIMIT));
}

/** The read_result tool's text for the session `sessionId`: a header with the byte range, then the slice. */
export async function readResult(store: BlobStore, sessionId: string, args: { ref_id: string; offset?: number; limit?: number }): Promise<string> {
  const slice = await readResultBytes(store, sessionId, args.ref_id, args.offset ?? 0, args.limit ?? READ_RESULT_DEFAULT_LIMIT);
  const end = slice.offset + slice.bytes.length;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(slice.bytes);
  const next = end < slice.totalBytes ? ` Next: offset=${end}.` : ' This is the end.';
  const partialChar = slice.bytes.length > 0 && ((slice.bytes[0] & 0xc0) === 0x80 || text.endsWith('\uFFFD')) ? ' (the slice cuts a multi-byte character at an edge)' : '';
  return `[bytes ${slice.offset}–${end} of ${slice.totalBytes}${partialChar}.${next}]\n${text}`;
}
