/**
 * Event-loop blocking while Tally handles hostile input ("the extension host never blocks
 * for more than 100 ms at a time"). For each input, the longest stretch without a timer turn is
 * measured for Tally's sliced pipeline and, as the peer in the same run, for the same work done
 * at once (the previous design: encode, hash, decode and truncate whole, one sql.js file per
 * result, one synchronous count). Writes bench/results/reliability.json and prints a table.
 * Run: node -r ./test/register.cjs bench/reliability.bench.ts
 */
import { createHash, randomBytes } from 'crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { cpus, tmpdir, totalmem } from 'os';
import { join } from 'path';
import { bpeCount, bpeCountShort } from '../src/core/accounting/bpeCount';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import { loadRanksAsync, loadRanksSync } from '../src/core/accounting/rankLoader';
import { openStore } from '../src/node/store';
import { MIGRATIONS } from '../src/node/store/sql/schema';
import { sqlRuntime } from '../src/node/store/sql/sqlRuntime';
import { withSettings } from '../src/core/settings';
import { recordToolResult } from '../src/core/toolOutput/recorder';
import { truncateOutput } from '../src/core/toolOutput/truncate';
import { measureBlocking } from '../test/support/eventLoopBlocks';

const MB = 1024 * 1024;

function logText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${String(i).padStart(8, '0')} INFO worker-${i % 7} processed batch ${i} in ${i % 97} ms — ✓ ok`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return Buffer.from(lines.join('\n')).toString('utf8'); // flat, as a tool hands it over
}

interface Row {
  input: string;
  tallyMs: number;
  tallyLongestBlockMs: number;
  atOnceMs: number;
  atOnceLongestBlockMs: number;
}

async function main() {
  const folder = mkdtempSync(join(tmpdir(), 'tally-bench-rel-'));
  const store = await openStore(folder);
  const SQL = await sqlRuntime();
  const sessionId = (await store.createSession({ title: 'bench' })).id;
  const settings = withSettings();
  const call = { id: 'c', name: 'run_command', arguments: '{}' };
  let n = 0;

  // The peer: the same work with no slicing.
  const atOnce = async (output: string | Uint8Array) => {
    const bytes = typeof output === 'string' ? Buffer.from(output) : Buffer.from(output);
    createHash('sha256').update(bytes).digest('hex');
    truncateOutput(bytes, { maxLines: 60, maxBytes: settings.offloadPreviewBytes });
    const db = new SQL.Database();
    for (const m of MIGRATIONS) db.run(m.sql);
    db.run('INSERT INTO tool_result_blobs (id, session_id, tool_name, content, byte_size, line_count, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', ['r', 's', 't', bytes, bytes.length, 0, '', 0]);
    const data = db.export();
    db.close();
    writeFileSync(join(folder, `peer-${n}.sqlite`), data);
  };

  const inputs: Array<[string, () => string | Uint8Array]> = [
    ['100 MB text (string)', () => logText(100 * MB)],
    ['100 MB text (bytes)', () => Buffer.from(logText(100 * MB))],
    ['one 10 MB line', () => 'abcdefghij'.repeat(MB)],
    ['50 MB binary', () => randomBytes(50 * MB)],
    ['20 MB invalid UTF-8', () => Buffer.concat([Buffer.from(logText(10 * MB)), Buffer.from([0xff, 0xfe]), Buffer.from(logText(10 * MB))])],
    ['10 MB of special-token strings', () => '<|endoftext|> <|im_start|>user<|im_end|>\n'.repeat(Math.ceil((10 * MB) / 43))],
  ];
  const rows: Row[] = [];
  for (const [input, make] of inputs) {
    const output = make();
    n++;
    let started = Date.now();
    const tally = await measureBlocking(() => recordToolResult({ store, sessionId, call: { ...call, id: `c${n}` }, output, settings }));
    const tallyMs = Date.now() - started;
    started = Date.now();
    const peer = await measureBlocking(() => atOnce(output));
    const atOnceMs = Date.now() - started;
    rows.push({ input, tallyMs, tallyLongestBlockMs: tally.longestBlockMs, atOnceMs, atOnceLongestBlockMs: peer.longestBlockMs });
  }

  // Counting: one 10 MB piece (a run of one letter) and 10 MB of mixed text.
  const counter = getTokenCounter('o200k_base');
  await counter.load();
  for (const [input, text] of [['count 10 MB mixed text', logText(10 * MB)], ['count one 1 MB single-piece line', 'q'.repeat(MB)]] as const) {
    let started = Date.now();
    const sliced = await measureBlocking(() => counter.countAsync(text));
    const tallyMs = Date.now() - started;
    started = Date.now();
    const whole = await measureBlocking(async () => counter.count(text));
    rows.push({ input, tallyMs, tallyLongestBlockMs: sliced.longestBlockMs, atOnceMs: Date.now() - started, atOnceLongestBlockMs: whole.longestBlockMs });
  }
  {
    // One 32 KB single-piece line: the heap merge against the plain quadratic scan.
    const { table: rankMap } = loadRanksSync('o200k_base');
    const piece = Buffer.from('q'.repeat(32 * 1024));
    let started = Date.now();
    const heap = await measureBlocking(async () => bpeCount(piece, rankMap));
    const tallyMs = Date.now() - started;
    started = Date.now();
    const scan = await measureBlocking(async () => bpeCountShort(piece, rankMap));
    if (heap.result !== scan.result) throw new Error(`merge counts differ: ${heap.result} vs ${scan.result}`);
    rows.push({ input: 'BPE of one 32 KB piece (heap vs scan)', tallyMs, tallyLongestBlockMs: heap.longestBlockMs, atOnceMs: Date.now() - started, atOnceLongestBlockMs: scan.longestBlockMs });
  }
  {
    let started = Date.now();
    const sliced = await measureBlocking(() => loadRanksAsync('o200k_base'));
    const tallyMs = Date.now() - started;
    started = Date.now();
    const whole = await measureBlocking(async () => loadRanksSync('o200k_base'));
    rows.push({ input: 'load o200k_base ranks', tallyMs, tallyLongestBlockMs: sliced.longestBlockMs, atOnceMs: Date.now() - started, atOnceLongestBlockMs: whole.longestBlockMs });
  }
  await store.close();
  rmSync(folder, { recursive: true, force: true });

  const width = Math.max(...rows.map((r) => r.input.length));
  console.log(`${'input'.padEnd(width)}  tally total / longest block   at once total / longest block`);
  for (const r of rows) {
    console.log(`${r.input.padEnd(width)}  ${`${r.tallyMs} ms`.padStart(9)} / ${r.tallyLongestBlockMs.toFixed(1).padStart(7)} ms      ${`${r.atOnceMs} ms`.padStart(9)} / ${r.atOnceLongestBlockMs.toFixed(1).padStart(7)} ms`);
  }
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'reliability.json'),
    JSON.stringify({ date: new Date().toISOString(), machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version }, targetLongestBlockMs: 100, rows }, null, 2) + '\n',
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
