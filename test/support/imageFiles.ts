/**
 * Real image files, written by small encoders here (no image library in the project): a PNG
 * (deflated RGB rows with CRCs), a GIF (LZW with a clear code every two pixels, so the code width
 * never grows), a baseline JPEG (one grey component, one-symbol Huffman tables: every block is DC 0
 * then end-of-block) and a lossless WebP (VP8L with one-symbol prefix codes: every pixel costs no
 * bits). Each decodes in a browser to a solid image of the size asked.
 */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const u32be = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const u16be = (n: number) => [(n >>> 8) & 255, n & 255];
const u16le = (n: number) => [n & 255, (n >>> 8) & 255];
const u32le = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];

function pngChunk(type: string, data: Uint8Array): number[] {
  const typed = new Uint8Array([...Buffer.from(type, 'latin1'), ...data]);
  return [...u32be(data.length), ...typed, ...u32be(crc32(typed))];
}

export function pngFile(width: number, height: number, rgb: [number, number, number] = [200, 60, 40]): Uint8Array {
  const row = [0, ...Array.from({ length: width }, () => rgb).flat()];
  const raw = new Uint8Array(Array.from({ length: height }, () => row).flat());
  const ihdr = new Uint8Array([...u32be(width), ...u32be(height), 8, 2, 0, 0, 0]);
  return new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...pngChunk('IHDR', ihdr), ...pngChunk('IDAT', new Uint8Array(deflateSync(raw))), ...pngChunk('IEND', new Uint8Array(0))]);
}

/** Bits written least significant first (GIF's LZW and WebP's VP8L). */
class LsbBits {
  readonly bytes: number[] = [];
  private acc = 0;
  private n = 0;
  write(value: number, count: number): void {
    for (let i = 0; i < count; i++) {
      this.acc |= ((value >>> i) & 1) << this.n;
      if (++this.n === 8) this.flush();
    }
  }
  flush(): void {
    if (this.n > 0) this.bytes.push(this.acc);
    this.acc = 0;
    this.n = 0;
  }
}

export function gifFile(width: number, height: number): Uint8Array {
  const bits = new LsbBits();
  const pixels = width * height;
  for (let i = 0; i < pixels; i += 2) {
    bits.write(4, 3); // clear
    bits.write(0, 3);
    if (i + 1 < pixels) bits.write(0, 3);
  }
  bits.write(5, 3); // end of information
  bits.flush();
  const blocks: number[] = [];
  for (let i = 0; i < bits.bytes.length; i += 255) {
    const part = bits.bytes.slice(i, i + 255);
    blocks.push(part.length, ...part);
  }
  return new Uint8Array([
    ...Buffer.from('GIF89a', 'latin1'), ...u16le(width), ...u16le(height), 0x80, 0, 0,
    20, 120, 220, 255, 255, 255, // two colours
    0x2c, 0, 0, 0, 0, ...u16le(width), ...u16le(height), 0,
    2, ...blocks, 0, 0x3b,
  ]);
}

export function jpegFile(width: number, height: number): Uint8Array {
  const segment = (marker: number, body: number[]) => [0xff, marker, ...u16be(body.length + 2), ...body];
  const oneSymbolTable = (cls: number, symbol: number) => [cls << 4, 1, ...new Array(15).fill(0), symbol];
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  // Each block: DC category 0 ("0"), then end-of-block ("0"): two zero bits; the last byte padded with ones.
  const dataBits = blocks * 2;
  const data = new Array(Math.ceil(dataBits / 8)).fill(0);
  const pad = data.length * 8 - dataBits;
  if (pad > 0) data[data.length - 1] = (1 << pad) - 1;
  return new Uint8Array([
    0xff, 0xd8,
    ...segment(0xe0, [...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0, ...new Array(64).fill(1)]),
    ...segment(0xc0, [8, ...u16be(height), ...u16be(width), 1, 1, 0x11, 0]),
    ...segment(0xc4, [...oneSymbolTable(0, 0), ...oneSymbolTable(1, 0)]),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    ...data,
    0xff, 0xd9,
  ]);
}

export function webpFile(width: number, height: number): Uint8Array {
  const bits = new LsbBits();
  bits.write(0x2f, 8);
  bits.write(width - 1, 14);
  bits.write(height - 1, 14);
  bits.write(0, 1); // no alpha
  bits.write(0, 3); // version
  bits.write(0, 1); // no transform
  bits.write(0, 1); // no colour cache
  bits.write(0, 1); // no meta prefix codes
  for (const symbol of [90, 30, 160, 255, 0]) {
    bits.write(1, 1); // simple code
    bits.write(0, 1); // one symbol
    bits.write(1, 1); // of 8 bits
    bits.write(symbol, 8);
  }
  bits.flush();
  const vp8l = bits.bytes.length % 2 ? [...bits.bytes, 0] : bits.bytes;
  const chunk = [...Buffer.from('VP8L', 'latin1'), ...u32le(bits.bytes.length), ...vp8l];
  return new Uint8Array([...Buffer.from('RIFF', 'latin1'), ...u32le(4 + chunk.length), ...Buffer.from('WEBP', 'latin1'), ...chunk]);
}
