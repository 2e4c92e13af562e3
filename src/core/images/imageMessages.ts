import { attachmentMessage } from '../model/factories';
import type { Message } from '../model/message';
import { toBase64 } from './base64';
import { imageTokensFor, type ImageBilling, type ImageDetail } from './imageCost';
import { withImageData } from './imageData';
import { ImageFormatError, readImageHeader } from './imageHeader';
import { describeImage, MAX_IMAGE_BYTES, type ImageOrigin, type ImagePart } from './imagePart';

export interface ImageSource {
  bytes: Uint8Array;
  origin: ImageOrigin;
  label: string;
  path?: string;
}

/**
 * An image part made from its bytes: format and size read from the header, its cost on
 * the model's formula, its bytes beside it until stored. Throws ImageFormatError, saying why, for
 * bytes that are not a PNG, JPEG, GIF or WebP image, or an image over the size limit (the caller names the image).
 */
export function imagePartOf(source: ImageSource, billing: ImageBilling, detail: ImageDetail = 'auto'): ImagePart {
  if (source.bytes.length > MAX_IMAGE_BYTES) throw new ImageFormatError(`the image is ${(source.bytes.length / 1024 / 1024).toFixed(1)} MB; images up to ${MAX_IMAGE_BYTES / 1024 / 1024} MB can be sent`);
  const header = readImageHeader(source.bytes);
  const part: ImagePart = { ...header, byteSize: source.bytes.length, origin: source.origin, label: source.label, ...(source.path ? { path: source.path } : {}) };
  part.tokens = imageTokensFor(billing, part, detail);
  return withImageData(part, toBase64(source.bytes));
}

/** The text the model reads with an attached image: what it is and where it came from. */
export function imageCaption(part: ImagePart): string {
  const where = part.path ?? part.label;
  if (part.origin === 'tool') return `[Image ${describeImage(part)}, read by a tool from ${where}]`;
  return `[Attached image ${describeImage(part)}, ${part.origin === 'pasted' ? 'pasted into the chat' : `from ${where}`}]`;
}

/** An image the user attached, as an attachment message before their own. */
export function imageAttachment(part: ImagePart): Message {
  const message = attachmentMessage({ kind: 'image', label: part.label, ...(part.path ? { path: part.path } : {}) }, imageCaption(part));
  message.images = [part];
  return message;
}
