/** Image sizes read from the header bytes of real files (written by test/support/imageFiles.ts, which a browser decodes). */
import assert from 'node:assert/strict';
import { ImageFormatError, imageTypeOfName, readImageHeader } from '../../../../src/core/images/imageHeader';
import { gifFile, jpegFile, pngFile, webpFile } from '../../../support/imageFiles';

const FILES = [
  { name: 'PNG', make: pngFile, mediaType: 'image/png', cuts: [4, 9, 12, 20, 23] },
  { name: 'GIF', make: gifFile, mediaType: 'image/gif', cuts: [4, 7, 9] },
  { name: 'JPEG', make: jpegFile, mediaType: 'image/jpeg', cuts: [4, 9, 12, 20, 40] },
  { name: 'WebP', make: webpFile, mediaType: 'image/webp', cuts: [4, 9, 12, 20, 29] },
] as const;

describe('reading an image header', () => {
  for (const file of FILES) {
    it(`${file.name}: the format and the size, at a few sizes`, () => {
      for (const [w, h] of [[1, 1], [37, 21], [640, 480], [1000, 3]]) {
        assert.deepEqual(readImageHeader(file.make(w, h)), { mediaType: file.mediaType, width: w, height: h }, `${w}×${h}`);
      }
    });

    it(`${file.name}: a file cut inside its header is a clear error, never a size`, () => {
      const whole = file.make(64, 48);
      for (const length of file.cuts) {
        assert.throws(() => readImageHeader(whole.subarray(0, length)), (error: Error) => error instanceof ImageFormatError && /cut short|damaged|not a PNG/.test(error.message), `${length} bytes`);
      }
    });
  }

  it('a JPEG whose segments run past the end of the file says it is cut short', () => {
    const whole = jpegFile(64, 48);
    const sof = whole.findIndex((b, i) => b === 0xff && whole[i + 1] === 0xc0);
    assert.throws(() => readImageHeader(whole.subarray(0, sof)), /JPEG image is cut short or damaged/);
  });

  it('a damaged header says what is wrong', () => {
    const png = pngFile(10, 10);
    png[12] = 0x58; // IHDR → XHDR
    assert.throws(() => readImageHeader(png), /PNG image has no IHDR chunk first/);
    const jpeg = jpegFile(10, 10);
    jpeg[20] = 0x00; // the segment after APP0 has no marker
    assert.throws(() => readImageHeader(jpeg), /JPEG image is damaged \(no segment marker at byte 20\)/);
    const zero = gifFile(4, 4);
    zero[6] = 0;
    zero[7] = 0;
    assert.throws(() => readImageHeader(zero), /0×4 pixels: the file is damaged/);
    const webp = webpFile(10, 10);
    webp[15] = 0x51; // VP8L → VP8Q
    assert.throws(() => readImageHeader(webp), /unknown first chunk "VP8Q"/);
  });

  it('anything else is refused: empty, text, a BMP', () => {
    assert.throws(() => readImageHeader(new Uint8Array(0)), /the file is empty/);
    assert.throws(() => readImageHeader(new TextEncoder().encode('hello, world')), /not a PNG, JPEG, GIF or WebP image/);
    assert.throws(() => readImageHeader(new Uint8Array([0x42, 0x4d, 0, 0, 0, 0, 0, 0])), /not a PNG, JPEG, GIF or WebP image/);
  });

  it('knows image files by their name', () => {
    assert.deepEqual(['a.PNG', 'b.jpg', 'c.jpeg', 'd.gif', 'e.webp', 'f.svg', 'png'].map(imageTypeOfName), ['image/png', 'image/jpeg', 'image/jpeg', 'image/gif', 'image/webp', undefined, undefined]);
  });
});
