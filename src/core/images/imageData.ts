import type { BlobStore } from '../ports/blobStore';
import type { Message } from '../model/message';
import { fromBase64, toBase64 } from './base64';
import type { ImagePart } from './imagePart';

/**
 * An image's bytes (base64) travel beside its part in a hidden slot (a non-enumerable symbol
 * property): JSON, spreads and structured clones never copy it, so a stored message, a snapshot or
 * a message posted to a view carries only the small part, and the bytes live once in the blob store.
 */
const DATA = Symbol('tally.imageData');
type WithData = ImagePart & { [DATA]?: string };

export function imageDataOf(part: ImagePart): string | undefined {
  return (part as WithData)[DATA];
}

/** `part` with its bytes (as base64) beside it. */
export function withImageData<T extends ImagePart>(part: T, base64: string): T {
  Object.defineProperty(part, DATA, { value: base64, writable: true, configurable: true, enumerable: false });
  return part;
}

/** The tool name the blob store records images under (read_result can read them back). */
export const IMAGE_BLOB_TOOL = 'image';

/**
 * Stores the bytes of every image of `messages` that has none stored yet (a new part, with its
 * data beside it), and gives each its `ref`. A part whose bytes cannot be stored keeps them in
 * memory only and the error is thrown: an image is never recorded without a way to send it again.
 */
export async function storeImages(messages: readonly Message[], store: BlobStore, sessionId: string): Promise<void> {
  for (const message of messages) {
    for (const part of message.images ?? []) {
      if (part.ref) continue;
      const data = imageDataOf(part);
      if (data === undefined) throw new Error(`the image ${part.label} has no data to store`);
      const info = await store.putBlob(sessionId, { toolName: IMAGE_BLOB_TOOL, content: fromBase64(data) });
      part.ref = info.id;
    }
  }
}

/**
 * Reads back from the blob store the bytes of the images of `messages` that have none in memory
 * (messages loaded from the store). Returns the labels of those that could not be read; the wire
 * forms send a line saying so in their place.
 */
export async function loadImageData(messages: readonly Message[], store: BlobStore, sessionId: string): Promise<string[]> {
  const missing: string[] = [];
  for (const message of messages) {
    for (const part of message.images ?? []) {
      if (imageDataOf(part) !== undefined) continue;
      try {
        if (!part.ref) throw new Error('never stored');
        const slice = await store.readBlob(sessionId, part.ref, 0, part.byteSize);
        withImageData(part, toBase64(slice.bytes));
      } catch {
        missing.push(part.label);
      }
    }
  }
  return missing;
}

/** What a wire form sends in place of an image whose bytes are not at hand. */
export function unreadableImageText(part: ImagePart): string {
  return `[image ${part.label} (${part.width}×${part.height}): its stored bytes could not be read, so it is not sent]`;
}
