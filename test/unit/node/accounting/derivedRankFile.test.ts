import { strict as assert } from 'assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { brotliDecompressSync } from 'zlib';
import { loadRanksAsync, loadRanksSync } from '../../../../src/core/accounting/rankLoader';
import { decodeDerivedRankFile, encodeDerivedRankFile } from '../../../../src/node/accounting/derivedRankFile';
import { compressRankFile, encodeRankFile, rankFileName, tiktokenRanksModule, writeRankFiles } from '../../../../src/node/accounting/rankFile';
import { nodeRankSource } from '../../../../src/node/accounting/rankSource';

describe('a rank file written against another encoding', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'tally-derived-ranks-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("rebuilds cl100k_base's rank file byte for byte from o200k_base's, from a file a third smaller than its own", () => {
    const cl100k = encodeRankFile(tiktokenRanksModule('cl100k_base'));
    const o200k = encodeRankFile(tiktokenRanksModule('o200k_base'));
    const derived = encodeDerivedRankFile(cl100k, 'o200k_base', o200k);
    assert.ok(decodeDerivedRankFile(derived, o200k).equals(cl100k));
    const own = compressRankFile(cl100k).length;
    const shipped = compressRankFile(derived).length;
    assert.ok(shipped < own * 0.75, `${shipped} bytes against ${own} for its own rank file`);
  });

  it('keeps tokens the base lacks and gaps in the numbering', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const base = encodeRankFile({ pat_str: '\\w+', bpe_ranks: `! 0 ${b64('a')} ${b64('b')} ${b64('ab')}\n` });
    const target = encodeRankFile({ pat_str: '\\d+', bpe_ranks: `! 0 ${b64('b')} ${b64('zz')}\n! 7 ${b64('ab')} ${b64('é')}\n` });
    assert.ok(decodeDerivedRankFile(encodeDerivedRankFile(target, 'base', base), base).equals(target));
  });

  it('is what the build ships for cl100k_base, and loads to the same ranks as js-tiktoken gives', async () => {
    writeRankFiles(dir);
    const shipped = brotliDecompressSync(readFileSync(join(dir, rankFileName('cl100k_base'))));
    assert.equal(shipped.toString('latin1', 0, 4), 'TKD1');
    const fromFile = await loadRanksAsync('cl100k_base', nodeRankSource(dir));
    const fromFileSync = loadRanksSync('cl100k_base', nodeRankSource(dir));
    const fromSource = loadRanksSync('cl100k_base', nodeRankSource(join(dir, 'absent')));
    assert.equal(fromFile.table.size, fromSource.table.size);
    for (const word of [' hello', ' world', 'ization', '\n\n\n', ' Ελληνικά']) {
      const bytes = Buffer.from(word);
      const expected = fromSource.table.rankOf(bytes, 0, bytes.length);
      assert.equal(fromFile.table.rankOf(bytes, 0, bytes.length), expected, word);
      assert.equal(fromFileSync.table.rankOf(bytes, 0, bytes.length), expected, word);
    }
  });

  it('says the ranks are damaged when the derived file is cut short or names itself as its base', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'tally-derived-broken-'));
    try {
      writeRankFiles(broken);
      const path = join(broken, rankFileName('cl100k_base'));
      const derived = brotliDecompressSync(readFileSync(path));
      writeFileSync(path, compressRankFile(derived.subarray(0, derived.length - 1000)));
      await assert.rejects(loadRanksAsync('cl100k_base', nodeRankSource(broken)), /token ranks at .*cl100k_base.* are damaged .*reinstall/);
      const cl100k = encodeRankFile(tiktokenRanksModule('cl100k_base'));
      writeFileSync(path, compressRankFile(encodeDerivedRankFile(cl100k, 'cl100k_base', cl100k)));
      assert.throws(() => loadRanksSync('cl100k_base', nodeRankSource(broken)), /are damaged \(written against an unknown encoding "cl100k_base"\)/);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
