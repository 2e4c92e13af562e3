import { strict as assert } from 'assert';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { brotliDecompressSync, deflateRawSync } from 'zlib';
import { encodeRankFile, ENCODINGS, rankFileName, tiktokenRanksModule, writeRankFiles } from '../../../../src/node/accounting/rankFile';
import { loadRanksAsync, loadRanksSync } from '../../../../src/core/accounting/rankLoader';
import { nodeRankSource } from '../../../../src/node/accounting/rankSource';
import { buildRankTable, NO_RANK, type LoadedRanks } from '../../../../src/core/accounting/rankTable';

function run<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Every (token bytes, rank) pair of js-tiktoken's rank module, later duplicates last. */
function tiktokenTokens(encoding: (typeof ENCODINGS)[number]): Array<[Buffer, number]> {
  const pairs: Array<[Buffer, number]> = [];
  for (const line of tiktokenRanksModule(encoding).bpe_ranks.split('\n')) {
    if (!line) continue;
    const fields = line.split(' ');
    const offset = Number.parseInt(fields[1], 10);
    for (let i = 2; i < fields.length; i++) pairs.push([Buffer.from(fields[i], 'base64'), offset + i - 2]);
  }
  return pairs;
}

describe('rank files', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'tally-ranks-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const encoding of ENCODINGS) {
    it(`gives every one of js-tiktoken's tokens its rank, and nothing else a rank (${encoding})`, () => {
      const { table } = loadRanksSync(encoding);
      const expected = new Map<string, number>();
      for (const [bytes, rank] of tiktokenTokens(encoding)) expected.set(bytes.toString('latin1'), rank);
      assert.equal(table.size, expected.size);
      for (const [key, rank] of expected) {
        const bytes = Buffer.from(key, 'latin1');
        assert.equal(table.rankOf(bytes, 0, bytes.length), rank);
      }
      // Every two-byte sequence, token or not (these are answered from their own array).
      const pair = new Uint8Array(2);
      for (let code = 0; code < 1 << 16; code++) {
        pair[0] = code >> 8;
        pair[1] = code & 0xff;
        assert.equal(table.rankOf(pair, 0, 2), expected.get(Buffer.from(pair).toString('latin1')) ?? NO_RANK);
      }
      for (const word of ['zzzzqqqqxxxx-not-a-token', '\u00ff\u00fe'.repeat(9)]) {
        const bytes = Buffer.from(word);
        assert.equal(table.rankOf(bytes, 0, bytes.length), NO_RANK);
      }
    });
  }

  it('the package build compresses them harder: smaller files that decode to the same bytes', function () {
    this.timeout(60_000);
    const fast = writeRankFiles(join(dir, 'fast'));
    const best = writeRankFiles(join(dir, 'best'), 'best');
    const total = (paths: string[]) => paths.reduce((n, p) => n + statSync(p).size, 0);
    assert.ok(total(best) < total(fast) * 0.96, `${total(best)} bytes against ${total(fast)}`);
    for (const [i, path] of best.entries()) {
      assert.ok(statSync(path).size < statSync(fast[i]).size, `${path}: ${statSync(path).size} bytes against ${statSync(fast[i]).size}`);
      assert.ok(brotliDecompressSync(readFileSync(path)).equals(brotliDecompressSync(readFileSync(fast[i]))));
    }
  });

  it('is written by the build into one folder and read from there, smaller than the bundled rank modules', async () => {
    const paths = writeRankFiles(dir);
    assert.deepEqual(paths.map((p) => p.slice(dir.length + 1)).sort(), ENCODINGS.map(rankFileName).sort());
    for (const encoding of ENCODINGS) {
      const source = tiktokenRanksModule(encoding);
      const size = statSync(join(dir, rankFileName(encoding))).size;
      assert.ok(size < source.bpe_ranks.length * 0.8, `${encoding}: ${size} bytes vs ${source.bpe_ranks.length} of text`);
      const fromFile: LoadedRanks = await loadRanksAsync(encoding, nodeRankSource(dir));
      const fromSource = loadRanksSync(encoding, nodeRankSource(join(dir, 'absent')));
      assert.equal(fromFile.pattern, source.pat_str);
      assert.equal(fromFile.table.size, fromSource.table.size);
      const hello = Buffer.from(' hello');
      assert.equal(fromFile.table.rankOf(hello, 0, hello.length), fromSource.table.rankOf(hello, 0, hello.length));
    }
  });

  it('keeps the later of two duplicate tokens and follows gaps in the numbering, as js-tiktoken does', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const file = encodeRankFile({ pat_str: '\\w+', bpe_ranks: `! 0 ${b64('a')} ${b64('b')} ${b64('abc')}\n! 10 ${b64('ab')} ${b64('a')} ${b64('ab')} ${b64('abc')}\n` });
    const { table, pattern } = run(buildRankTable(file));
    const rank = (s: string) => table.rankOf(Buffer.from(s), 0, s.length);
    assert.equal(pattern, '\\w+');
    assert.deepEqual([rank('a'), rank('b'), rank('ab'), rank('abc'), rank('ba'), rank('abd')], [11, 1, 12, 13, NO_RANK, NO_RANK]);
    assert.equal(table.size, 4);
  });

  it('refuses a damaged rank file with a clear error', () => {
    const good = brotliDecompressSync(readFileSync(writeRankFiles(dir)[0]));
    writeFileSync(join(dir, 'bad.ranks'), good.subarray(0, good.length - 3));
    assert.throws(() => run(buildRankTable(good.subarray(0, good.length - 3))), /truncated Tally rank file/);
    assert.throws(() => run(buildRankTable(Buffer.from('not ranks at all'))), /not a Tally rank file/);
  });

  it('ships compressed, smaller than the package zip would make the raw file, and says when a shipped file is damaged', async () => {
    const damagedDir = mkdtempSync(join(tmpdir(), 'tally-ranks-damaged-'));
    try {
      const [path] = writeRankFiles(damagedDir);
      const shipped = readFileSync(path);
      const raw = encodeRankFile(tiktokenRanksModule(ENCODINGS[0]));
      assert.ok(shipped.length < deflateRawSync(raw, { level: 9 }).length * 0.9, `${shipped.length} bytes shipped vs ${deflateRawSync(raw, { level: 9 }).length} zipped`);
      writeFileSync(path, shipped.subarray(0, shipped.length >> 1));
      await assert.rejects(loadRanksAsync(ENCODINGS[0], nodeRankSource(damagedDir)), /token ranks at .* are damaged .*reinstall/);
      assert.throws(() => loadRanksSync(ENCODINGS[0], nodeRankSource(damagedDir)), /token ranks at .* are damaged/);
    } finally {
      rmSync(damagedDir, { recursive: true, force: true });
    }
  });
});
