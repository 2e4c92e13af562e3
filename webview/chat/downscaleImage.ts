/**
 * Scales an image chip's bytes down to the size the host asked for, with Chromium's own decoder
 * and encoder (createImageBitmap, OffscreenCanvas): no image library, and no fetch, so the
 * webview's CSP is untouched. The host checks what comes back before it sends it.
 */
import type { ImageToDownscale } from '../../src/protocol/attachments';
import type { ChatToHost } from '../../src/protocol/chat';
import { base64Of } from './pastedImages';

type ImageMediaType = Extract<ChatToHost, { type: 'downscaledImage' }>['mediaType'];

/** Canvas encodes PNG, JPEG and WebP; a GIF's smaller copy is a PNG. */
const ENCODABLE = new Set(['image/png', 'image/jpeg', 'image/webp']);

export async function downscaledCopy(request: ImageToDownscale): Promise<{ mediaType: ImageMediaType; data: string }> {
  const bytes = Uint8Array.from(atob(request.data), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: request.mediaType }), { resizeWidth: request.width, resizeHeight: request.height, resizeQuality: 'high' });
  const canvas = new OffscreenCanvas(request.width, request.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('this webview cannot draw images');
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  const type = ENCODABLE.has(request.mediaType) ? request.mediaType : 'image/png';
  const blob = await canvas.convertToBlob({ type, quality: 0.9 });
  return { mediaType: blob.type as ImageMediaType, data: await base64Of(blob) };
}

