import { strict as assert } from 'assert';
import { utf8ByteLength } from '../../../../src/core/toolOutput/utf8Bytes';
import { encodeUtf8, SCAN_SLICE_BYTES } from '../../../../src/core/toolOutput/scan';
import { utf8Prefix, utf8Suffix } from '../../../../src/core/toolOutput/truncate';

// Texts whose UTF-8 size is easy to get wrong: every byte width, pairs, lone halves of a pair.
const TEXTS = ['', 'plain ascii', 'é', '€ and ✓', '😀', 'a😀b', '\ud83d', '\ude00', 'x\ud83dy', '\ude00\ud83d', '日本語のテキスト', 'mixed é€😀\ud83d end'];

describe('UTF-8 sizes and slices measured without Node’s Buffer', () => {
  it('counts the bytes of each text as Node encodes it, lone surrogates as U+FFFD', () => {
    for (const text of TEXTS) assert.equal(utf8ByteLength(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text));
  });

  it('encodes a text larger than one scan slice to the same bytes as Node, with an emoji straddling the slice boundary', async () => {
    const text = 'a'.repeat(SCAN_SLICE_BYTES - 1) + '😀' + 'é'.repeat(1000) + '\ud83d';
    assert.deepEqual(Buffer.from(await encodeUtf8(text)), Buffer.from(text, 'utf8'));
  });

  it('keeps the longest prefix and suffix that fit a byte budget without splitting a character', () => {
    assert.equal(utf8Prefix('ab😀cd', 5), 'ab');
    assert.equal(utf8Prefix('ab😀cd', 6), 'ab😀');
    assert.equal(utf8Suffix('ab😀cd', 5), 'cd');
    assert.equal(utf8Suffix('ab😀cd', 6), '😀cd');
  });
});
