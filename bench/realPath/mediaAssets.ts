/**
 * The inputs of the capability bench, made deterministically: a web page like a long documentation
 * or news page (inline scripts and styles, navigation, an article of sections with paragraphs,
 * links, lists, tables and code, a comment thread), a screenshot-like PNG (UI bands and text-like
 * rows, which is what a pasted 12-megapixel screen looks like), a camera-like JPEG (valid markers,
 * entropy-coded-like bytes), and a real PNG encoder for the webview's smaller copy.
 */
import { deflateSync } from 'zlib';
import { prng } from '../../test/support/syntheticSession';

const WORDS = 'the a request session window context token model tool result page server client cache index build test module function value error stream buffer worker thread event loop block compaction summary image budget limit header body response'.split(' ');

function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
  out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return `${out.join(' ')}.`;
}

/** An HTML page of about `bytes` bytes (UTF-8, ASCII only), its article about two thirds of it. */
export function articlePage(bytes: number): string {
  const random = prng(bytes);
  const head = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Streaming request bodies: a field guide</title>',
    `<style>${'.nav a{color:#333;padding:4px 8px}.card{border:1px solid #ddd;margin:8px}'.repeat(200)}</style>`,
    `<script>window.__STATE__=${JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => ({ id: i, title: sentence(random, 6) })) })};</script>`,
    '</head><body><header><nav class="nav">',
    ...Array.from({ length: 120 }, (_, i) => `<a href="/docs/section-${i}">Section ${i}</a>`),
    '</nav></header><main><article><h1>Streaming request bodies: a field guide</h1>',
  ];
  const tail = ['</article></main><footer>', ...Array.from({ length: 60 }, (_, i) => `<a href="/about/${i}">About ${i}</a>`), '</footer></body></html>'];
  const parts = [...head];
  let size = parts.join('').length + tail.join('').length;
  const push = (html: string) => {
    parts.push(html);
    size += html.length;
  };
  for (let section = 0; size < bytes; section++) {
    push(`<h2 id="s${section}">Section ${section}: ${sentence(random, 5)}</h2>`);
    for (let p = 0; p < 4; p++) push(`<p>${sentence(random, 25)} See <a href="/docs/ref-${section}-${p}">the reference</a> and <code>option${p}</code>. ${sentence(random, 30)}</p>`);
    push(`<ul>${Array.from({ length: 5 }, () => `<li>${sentence(random, 8)}</li>`).join('')}</ul>`);
    if (section % 3 === 0) push(`<table><tr><th>Case</th><th>Time</th></tr>${Array.from({ length: 6 }, (_, r) => `<tr><td>case ${r}</td><td>${Math.floor(random() * 900)} ms</td></tr>`).join('')}</table>`);
    if (section % 4 === 0) push(`<pre><code>${Array.from({ length: 8 }, (_, l) => `const value${l} = await stream.read(${l});`).join('\n')}</code></pre>`);
    if (section % 10 === 9) push(`<aside class="card"><p>${sentence(random, 12)}</p><button>Subscribe</button></aside>`);
  }
  return [...parts, ...tail].join('').slice(0, bytes - tail.join('').length) + tail.join('');
}

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A real RGB PNG, each pixel from `pixel` (0xRRGGBB). */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => number): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0, at = 0; y < height; y++) {
    raw[at++] = 0;
    for (let x = 0; x < width; x++) {
      const rgb = pixel(x, y);
      raw[at++] = rgb >> 16;
      raw[at++] = (rgb >> 8) & 255;
      raw[at++] = rgb & 255;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(raw, { level: 6 })), pngChunk('IEND', new Uint8Array(0))]);
}

/** A screen-like image: window bands, and rows of text-like glyph noise on most of it. */
export function screenshotPng(width: number, height: number): Buffer {
  const random = prng(width * height);
  const noise = new Uint8Array(width * 16);
  for (let i = 0; i < noise.length; i++) noise[i] = random() < 0.35 ? 1 : 0;
  return encodePng(width, height, (x, y) => {
    if (y % 400 < 40) return 0x2d2d30;
    const line = y % 20;
    if (line < 14 && x % 900 < 780 && noise[(line * width + x + (y >> 4) * 131) % noise.length]) return 0xd4d4d4 - ((x * 7 + y) & 0x0f0f0f);
    return 0x1e1e1e;
  });
}

/** A baseline JPEG of `width`×`height` and about `bytes` bytes: real markers, then scan bytes as a camera's look (no 0xFF byte in them). */
export function photoJpeg(width: number, height: number, bytes: number): Buffer {
  const random = prng(bytes);
  const segment = (marker: number, body: Buffer) => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([head, body]);
  };
  const jfif = segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  const quant = segment(0xdb, Buffer.from([0, ...Array.from({ length: 64 }, (_, i) => 1 + (i % 50))]));
  const frameBody = Buffer.from([8, 0, 0, 0, 0, 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0]);
  frameBody.writeUInt16BE(height, 1);
  frameBody.writeUInt16BE(width, 3);
  const frame = segment(0xc0, frameBody);
  const scanHeader = segment(0xda, Buffer.from([3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0]));
  const scan = Buffer.alloc(Math.max(0, bytes - 2 - jfif.length - quant.length - frame.length - scanHeader.length - 2));
  for (let i = 0; i < scan.length; i++) scan[i] = Math.floor(random() * 255);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), jfif, quant, frame, scanHeader, scan, Buffer.from([0xff, 0xd9])]);
}
