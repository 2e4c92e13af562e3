import { strict as assert } from 'assert';
import { base64InScript, fromBase64, toBase64 } from '../../../../src/core/images/base64';
import '../../../../src/node/usePlatform';
import { prng } from '../../../support/syntheticSession';

/** Bytes of every value, in an order that depends on `seed`. */
function bytesOf(length: number, seed: number): Uint8Array {
  const random = prng(seed);
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
}

describe('base64 of image bytes', () => {
  it('gives the RFC 4648 test vectors', () => {
    const vectors: Array<[string, string]> = [['', ''], ['f', 'Zg=='], ['fo', 'Zm8='], ['foo', 'Zm9v'], ['foob', 'Zm9vYg=='], ['fooba', 'Zm9vYmE='], ['foobar', 'Zm9vYmFy']];
    for (const [text, encoded] of vectors) {
      assert.equal(base64InScript(new TextEncoder().encode(text)), encoded);
      assert.equal(toBase64(new TextEncoder().encode(text)), encoded);
      assert.equal(new TextDecoder().decode(fromBase64(encoded)), text);
    }
  });

  it('agrees with Node for every length up to 70 and every byte value, with padding and without', () => {
    for (let length = 0; length <= 70; length++) {
      const bytes = bytesOf(length, length + 1);
      const encoded = base64InScript(bytes);
      assert.equal(encoded, Buffer.from(bytes).toString('base64'), `length ${length}`);
      assert.equal(toBase64(bytes.subarray(1)), Buffer.from(bytes.subarray(1)).toString('base64'), `length ${length - 1}, a view into a larger buffer, the platform's encoder`);
      assert.deepEqual(fromBase64(encoded), bytes, `length ${length}`);
      assert.deepEqual(fromBase64(encoded.replace(/=+$/, '')), bytes, `length ${length}, unpadded`);
    }
  });

  it('round-trips an image-sized buffer (over a megabyte of text, encoded in slices)', () => {
    const bytes = bytesOf(3 * 1024 * 1024 + 2, 7);
    const encoded = base64InScript(bytes);
    assert.equal(encoded, Buffer.from(bytes).toString('base64'));
    assert.equal(toBase64(bytes), encoded);
    assert.deepEqual(fromBase64(encoded), bytes);
  });

  it('refuses text that is not base64, wherever the bad character is', () => {
    for (const text of ['ab$d', 'abcd ef=', 'Zm9v\nYmFy', 'Zm9vYmFy\u0141', 'Zm\u0100v', '\u0141AAA']) {
      assert.throws(() => fromBase64(text), /not base64/, JSON.stringify(text));
    }
  });
});
