import type { ImageMediaType } from './imagePart';

/** An image's format and size, read from its first bytes. */
export interface ImageHeader {
  mediaType: ImageMediaType;
  width: number;
  height: number;
}

/** The bytes are not an image Tally can send, or the file is cut short. */
export class ImageFormatError extends Error {}

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => prefix.every((b, i) => bytes[at + i] === b);
const u16be = (b: Uint8Array, at: number) => (b[at] << 8) | b[at + 1];
const u16le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u24le = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at] << 24) >>> 0) + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);

function need(bytes: Uint8Array, length: number, format: string): void {
  if (bytes.length < length) throw new ImageFormatError(`the ${format} image is cut short (${bytes.length} bytes; its header needs ${length})`);
}

function png(bytes: Uint8Array): ImageHeader {
  need(bytes, 24, 'PNG');
  if (!startsWith(bytes, [0x49, 0x48, 0x44, 0x52], 12)) throw new ImageFormatError('the PNG image has no IHDR chunk first: the file is damaged');
  return { mediaType: 'image/png', width: u32be(bytes, 16), height: u32be(bytes, 20) };
}

function gif(bytes: Uint8Array): ImageHeader {
  need(bytes, 10, 'GIF');
  return { mediaType: 'image/gif', width: u16le(bytes, 6), height: u16le(bytes, 8) };
}

/** A JPEG's size is in its first start-of-frame segment (SOF0…SOF15 but DHT, JPG and DAC). */
function jpeg(bytes: Uint8Array): ImageHeader {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) throw new ImageFormatError(`the JPEG image is damaged (no segment marker at byte ${at})`);
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) break; // end of image or start of scan before any frame
    const length = u16be(bytes, at + 2);
    if (length < 2) throw new ImageFormatError(`the JPEG image is damaged (a segment of length ${length})`);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      need(bytes, at + 9, 'JPEG');
      return { mediaType: 'image/jpeg', width: u16be(bytes, at + 7), height: u16be(bytes, at + 5) };
    }
    at += 2 + length;
  }
  throw new ImageFormatError('the JPEG image is cut short or damaged: no frame header gives its size');
}

function webp(bytes: Uint8Array): ImageHeader {
  need(bytes, 30, 'WebP');
  const chunk = String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]);
  if (chunk === 'VP8X') return { mediaType: 'image/webp', width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) throw new ImageFormatError('the WebP (lossless) image is damaged: bad signature');
    const bits = bytes[21] | (bytes[22] << 8) | (bytes[23] << 16) | (bytes[24] << 24);
    return { mediaType: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8 ') {
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) throw new ImageFormatError('the WebP (lossy) image is damaged: no frame start code');
    return { mediaType: 'image/webp', width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  throw new ImageFormatError(`the WebP image has an unknown first chunk "${chunk}"`);
}

/** Whether the bytes start like a PNG, JPEG, GIF or WebP file (whatever follows). */
export function hasImageSignature(bytes: Uint8Array): boolean {
  return startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) || startsWith(bytes, [0xff, 0xd8, 0xff]) || startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) || (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8));
}

/**
 * The format and size of a PNG, JPEG, GIF or WebP image, from its header bytes; throws
 * ImageFormatError, saying why, for anything else, a damaged header or a file cut short.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader {
  let header: ImageHeader;
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) header = png(bytes);
  else if (startsWith(bytes, [0xff, 0xd8, 0xff])) header = jpeg(bytes);
  else if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) header = gif(bytes);
  else if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) header = webp(bytes);
  else throw new ImageFormatError(bytes.length === 0 ? 'the file is empty' : 'not a PNG, JPEG, GIF or WebP image');
  if (header.width <= 0 || header.height <= 0) throw new ImageFormatError(`the ${header.mediaType.slice(6).toUpperCase()} image says it is ${header.width}×${header.height} pixels: the file is damaged`);
  return header;
}

/** The media type an image file's name suggests, for choosing to read it as an image. */
export function imageTypeOfName(name: string): ImageMediaType | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === 'png') return 'image/png';
  if (ext === 'jpg' || ext === 'jpeg') return 'image/jpeg';
  if (ext === 'gif') return 'image/gif';
  if (ext === 'webp') return 'image/webp';
  return undefined;
}
