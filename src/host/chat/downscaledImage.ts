/**
 * Checks the smaller copy of an image the chat webview made: it must be an image of the type it
 * claims, at exactly the size that was asked for, and no larger than the original in pixels or
 * bytes. Anything else is refused with the reason, and the original stays attached.
 */
import { readImageHeader } from '../../core/images/imageHeader';
import { formatName, MAX_IMAGE_BYTES, type ImageMediaType, type ImagePart } from '../../core/images/imagePart';
import type { ImageSize } from '../../core/images/imageSize';
import { countOf } from '../../protocol/wording';

export class DownscaleError extends Error {}

export function checkDownscaled(original: ImagePart, target: ImageSize, mediaType: ImageMediaType, bytes: Uint8Array): void {
  const refuse = (why: string) => new DownscaleError(`The smaller copy of ${original.label} was not used: ${why}. The original (${original.width}×${original.height}) stays attached.`);
  if (bytes.length > MAX_IMAGE_BYTES) throw refuse(`it is over ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);
  let header;
  try {
    header = readImageHeader(bytes);
  } catch (error) {
    throw refuse(`it is not a readable image (${error instanceof Error ? error.message : String(error)})`);
  }
  if (header.mediaType !== mediaType) throw refuse(`it was said to be ${formatName(mediaType)} but is ${formatName(header.mediaType)}`);
  if (header.width > original.width || header.height > original.height) throw refuse(`it is ${header.width}×${header.height}, larger than the original`);
  if (header.width !== target.width || header.height !== target.height) throw refuse(`it is ${header.width}×${header.height}, not the ${target.width}×${target.height} asked for`);
  if (bytes.length > original.byteSize) throw refuse(`it takes ${countOf(bytes.length, 'byte')}, more than the original's ${countOf(original.byteSize, 'byte')}`);
}
