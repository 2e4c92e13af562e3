import type { Row } from '../sql/connection';
import type { BlobInfo } from '../../../core/ports/blobStore';

/** The columns of a stored result's row in a segment's `tool_result_blobs` table, and the info they give. */
export const INFO_COLUMNS = 'id, session_id, tool_name, tool_call_id, byte_size, line_count, sha256, created_at';

export function blobInfoOf(r: Row): BlobInfo {
  return {
    id: String(r.id),
    sessionId: String(r.session_id),
    toolName: String(r.tool_name),
    toolCallId: r.tool_call_id === null ? undefined : String(r.tool_call_id),
    byteSize: Number(r.byte_size),
    lineCount: Number(r.line_count),
    sha256: String(r.sha256),
    createdAt: Number(r.created_at),
  };
}
