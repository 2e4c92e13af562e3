import type { BlobStore } from '../ports/blobStore';
import type { ToolOutput } from '../tools/types';
import { IMAGE_BLOB_TOOL } from './imageData';

/**
 * read_result on a stored image: the image again (the model sees it after the response's results),
 * not its bytes as text. Undefined when `refId` is not an image this session may read.
 */
export async function storedImageOutput(store: BlobStore, sessionId: string, refId: string): Promise<ToolOutput | undefined> {
  const info = await store.getBlobInfo(sessionId, refId).catch(() => undefined);
  if (!info || info.toolName !== IMAGE_BLOB_TOOL) return undefined;
  const slice = await store.readBlob(sessionId, refId, 0, info.byteSize);
  return { output: `Stored image ${refId} (${info.byteSize} bytes); the image follows.`, images: [{ bytes: slice.bytes, origin: 'tool', label: `stored image ${refId}` }] };
}
