/** The image formats every provider Tally speaks accepts. */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** The largest image Tally sends (Anthropic's limit per image; OpenAI's is larger). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Where an image came from: pasted or dropped into the chat, a file the user or `tally exec` attached, or a tool's result. */
export type ImageOrigin = 'pasted' | 'file' | 'tool';

/**
 * An image a message carries. Its bytes are stored once in the blob store (`ref`) and travel with
 * the message only in memory (imageData.ts), so the transcript and every snapshot hold this small
 * record, not the image.
 */
export interface ImagePart {
  mediaType: ImageMediaType;
  width: number;
  height: number;
  byteSize: number;
  origin: ImageOrigin;
  /** What the chip and the inspector call it: the file's name, or "pasted image". */
  label: string;
  /** The workspace-relative path it was read from, when there is one. */
  path?: string;
  /** The stored bytes in the blob store (absent until stored). */
  ref?: string;
  /** Tokens it costs on the model it was attached for (imageCost.ts); absent: the fixed estimate. */
  tokens?: number;
  /** The size it had before Tally downscaled it, when it did. */
  original?: { width: number; height: number; byteSize: number; tokens?: number };
}

export function isImageMediaType(value: unknown): value is ImageMediaType {
  return typeof value === 'string' && (IMAGE_MEDIA_TYPES as readonly string[]).includes(value);
}

/** "PNG", "JPEG"… */
export function formatName(mediaType: ImageMediaType): string {
  return mediaType.slice('image/'.length).toUpperCase();
}

/** One line about an image: "screenshot.png (PNG 1280×720, 1,229 tokens)". */
export function describeImage(part: ImagePart): string {
  const tokens = part.tokens === undefined ? '' : `, ${part.tokens.toLocaleString('en-US')} tokens`;
  return `${part.label} (${formatName(part.mediaType)} ${part.width}×${part.height}${tokens})`;
}
