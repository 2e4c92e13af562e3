import { strict as assert } from 'assert';
import { TextDecoder } from 'util';
import { truncateOutput, truncateMeasured, WHOLE_DECODE_MAX_BYTES } from '../../../../src/core/toolOutput/truncate';

const valid = (text: string) => new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text));

describe('tool-output truncation', () => {
  it('keeps the first lines and the final error line, with a marker and the total', () => {
    const lines = Array.from({ length: 756 }, (_, i) => `step ${i} ok`);
    lines.push('Error: expected 3, got 4 (src/math.ts:42)');
    const r = truncateOutput(lines.join('\n'), { maxLines: 256, maxBytes: 64 * 1024 });
    const out = r.text.split('\n');
    assert.equal(out[0], 'step 0 ok');
    assert.equal(out[out.length - 1], 'Error: expected 3, got 4 (src/math.ts:42)');
    assert.match(r.text, /\[… omitted 501 of 757 lines \([\d,]+ bytes\) …\]/);
    assert.equal(r.info?.originalLines, 757);
  });

  it('stays under the byte limit and keeps the last line when lines are long', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `${i}:` + 'x'.repeat(500));
    lines.push('FATAL: out of memory');
    const r = truncateOutput(lines.join('\n'), { maxLines: 1000, maxBytes: 2048 });
    assert.ok(Buffer.byteLength(r.text) <= 2048, `${Buffer.byteLength(r.text)} bytes`);
    assert.ok(r.text.endsWith('FATAL: out of memory'));
    assert.ok(r.text.startsWith('0:xxx'));
  });

  it('never splits a UTF-8 character at the cut', () => {
    for (const unit of ['日本語', '😀', 'é', 'a😀b日']) {
      const text = unit.repeat(5000);
      for (const maxBytes of [1000, 1001, 1002, 1003]) {
        const r = truncateOutput(text, { maxLines: 10, maxBytes });
        assert.ok(Buffer.byteLength(r.text) <= maxBytes);
        assert.doesNotThrow(() => valid(r.text));
        assert.ok(!r.text.includes('\uFFFD'), 'no replacement characters introduced');
      }
    }
  });

  it('cuts one 10 MB line by bytes, saying how much was left out', () => {
    const r = truncateOutput('z'.repeat(10_000_000), { maxLines: 400, maxBytes: 32 * 1024 });
    assert.ok(Buffer.byteLength(r.text) <= 32 * 1024);
    assert.match(r.text, /omitted 0 of 1 lines \(9,9\d\d,\d{3} bytes\)/);
  });

  it('keeps special-token strings as text', () => {
    const r = truncateOutput('a <|endoftext|> b\n'.repeat(1000), { maxLines: 10, maxBytes: 10_000 });
    assert.ok(r.text.startsWith('a <|endoftext|> b'));
  });

  it('decodes invalid UTF-8 with replacement characters and says so', () => {
    const r = truncateOutput(Uint8Array.from([0x61, 0xff, 0xfe, 0x62]), { maxLines: 10, maxBytes: 100 });
    assert.equal(r.invalidUtf8, true);
    assert.equal(r.text, 'a\uFFFD\uFFFDb');
  });

  it('leaves small output untouched', () => {
    const r = truncateOutput('one\ntwo\n', { maxLines: 10, maxBytes: 100 });
    assert.equal(r.text, 'one\ntwo\n');
    assert.equal(r.info, undefined);
  });
});

describe('truncating a measured large output from its two ends', () => {
  const lineOf = (i: number) => `${i}: ${'é漢x'.repeat(i % 13)}${i % 97 === 0 ? 'y'.repeat(5_000) : ''}`;
  const cases: Array<[string, string]> = [
    ['many short lines', Array.from({ length: 120_000 }, (_, i) => lineOf(i)).join('\n')],
    ['many lines ending in a newline', Array.from({ length: 90_000 }, (_, i) => lineOf(i)).join('\n') + '\n'],
    ['few long lines', Array.from({ length: 30 }, (_, i) => `${i}:${'ab€'.repeat(20_000)}`).join('\n')],
    ['one long line', '漢字'.repeat(400_000)],
  ];
  for (const [name, text] of cases) {
    for (const limits of [{ maxLines: 400, maxBytes: 32_768 }, { maxLines: 60, maxBytes: 1_536 }, { maxLines: 10, maxBytes: 1_024 }]) {
      it(`gives exactly what whole-text truncation gives: ${name}, ${limits.maxLines} lines / ${limits.maxBytes} bytes`, () => {
        const bytes = Buffer.from(text);
        assert.ok(bytes.length > WHOLE_DECODE_MAX_BYTES, 'large enough to take the two-ends path');
        const lineCount = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
        const measured = truncateMeasured({ bytes, byteSize: bytes.length, lineCount, invalidUtf8: false }, limits);
        assert.deepEqual(measured, truncateOutput(bytes, limits));
      });
    }
  }
});
