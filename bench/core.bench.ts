/**
 * Core engine benchmark (issue "Core context engine"): per-turn accounting at 100 / 1,000 / 10,000
 * messages, persisting one turn with 1 / 10 / 100 MB already stored, normalizing 1,000 items,
 * truncating a 10 MB output. Writes bench/results/core.json and prints a table.
 * Run: node -r ./test/register.cjs bench/core.bench.ts
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'fs';
import { cpus, tmpdir, totalmem } from 'os';
import { join } from 'path';
import { ContextBudget } from '../src/core/accounting/budget';
import { ComponentTally } from '../src/core/accounting/componentTally';
import { countMessage } from '../src/core/accounting/messageTokens';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import { normalizeHistory } from '../src/core/history/normalize';
import type { Message } from '../src/core/model/message';
import { openStore } from '../src/node/store';
import { withSettings } from '../src/core/settings';
import { scanOutput } from '../src/core/toolOutput/scan';
import { truncateMeasured, truncateOutput } from '../src/core/toolOutput/truncate';
import { median } from './median';

function time(fn: () => void, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(samples);
}

async function timeAsync(fn: () => Promise<void>, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(samples);
}

function makeMessages(n: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    const call = { id: `c${i}`, name: 'run_command', arguments: JSON.stringify({ command: `npm test -- case${i}` }) };
    if (i % 2 === 0) out.push({ id: `a${i}`, role: 'assistant', kind: 'assistant', content: `Step ${i}: checking module ${i}.`, toolCalls: [call], agentVisible: true, userVisible: true, createdAt: i });
    else out.push({ id: `t${i}`, role: 'tool', kind: 'tool_result', content: `line of output ${i}\n`.repeat(40), toolCallId: `c${i - 1}`, toolName: 'run_command', agentVisible: true, userVisible: true, createdAt: i });
  }
  return out;
}

async function main() {
  const counter = getTokenCounter('o200k_base');
  await counter.load();
  const settings = withSettings({ contextWindow: 200_000, maxOutputTokens: 8_000 });
  const results: Record<string, unknown> = {};
  const rows: Array<[string, string, string]> = [];

  // Per-turn accounting: append one message to an already-counted session and measure it.
  for (const n of [100, 1_000, 10_000]) {
    const messages = makeMessages(n);
    for (const m of messages) countMessage(m, counter);
    const ms = time(() => {
      const extra: Message = { id: `x${Math.random()}`, role: 'user', kind: 'user', content: 'Continue with the next failing test, please.', agentVisible: true, userVisible: true, createdAt: n };
      const all = [...messages, extra];
      const budget = new ContextBudget({ contextWindow: 200_000, maxOutputTokens: 8_000, settings });
      budget.setComponents({ ...new ComponentTally().componentsFor(all, (m) => countMessage(m, counter)), system: 2_000, skills: 0, tools: 1_500 });
      void budget.shouldCompact();
    }, 31);
    results[`accounting_${n}_ms`] = ms;
    rows.push([`per-turn accounting, ${n.toLocaleString('en-US')} messages`, `${ms.toFixed(3)} ms`, n === 1_000 ? '≤ 5 ms' : '']);
  }

  // Persisting one turn with 1, 10, 100 MB already stored.
  for (const mb of [1, 10, 100]) {
    const folder = mkdtempSync(join(tmpdir(), 'tally-bench-'));
    const store = await openStore(folder, { debounceMs: 1e9 });
    const session = await store.createSession({ title: 'bench' });
    const chunk = 'x'.repeat(2_000);
    let stored = 0;
    let i = 0;
    while (stored < mb * 1024 * 1024) {
      const batch: Message[] = [];
      for (let k = 0; k < 200; k++, i++) {
        batch.push({ id: `f${i}`, role: 'tool', kind: 'tool_result', content: chunk, toolCallId: `c${i}`, toolName: 'x', agentVisible: true, userVisible: true, createdAt: i });
        stored += chunk.length + 200;
      }
      await store.putMessages(session.id, batch);
      await store.flush();
    }
    const ms = await timeAsync(async () => {
      const turn: Message[] = [
        { id: `u${i}`, role: 'user', kind: 'user', content: 'next', agentVisible: true, userVisible: true, createdAt: i++ },
        { id: `a${i}`, role: 'assistant', kind: 'assistant', content: 'Running the tests.', toolCalls: [{ id: `k${i}`, name: 'run_command', arguments: '{"command":"npm test"}' }], agentVisible: true, userVisible: true, createdAt: i++ },
        { id: `t${i}`, role: 'tool', kind: 'tool_result', content: 'ok\n'.repeat(200), toolCallId: `k${i - 1}`, toolName: 'run_command', agentVisible: true, userVisible: true, createdAt: i++ },
      ];
      await store.putMessages(session.id, turn);
      await store.flush();
    }, 15);
    await store.close();
    rmSync(folder, { recursive: true, force: true });
    results[`persist_turn_${mb}mb_ms`] = ms;
    rows.push([`persist one turn, ${mb} MB stored`, `${ms.toFixed(2)} ms`, '≤ 20 ms']);
  }

  // Normalizing 1,000 items.
  const thousand = makeMessages(1_000);
  const normalizeMs = time(() => void normalizeHistory(thousand), 51);
  results.normalize_1000_ms = normalizeMs;
  rows.push(['normalize 1,000 items', `${normalizeMs.toFixed(3)} ms`, '< 10 ms']);

  // Truncating a 10 MB output (many lines, and one single line).
  const manyLines = 'compiling module … ok (12 ms)\n'.repeat(Math.ceil(10e6 / 30)).slice(0, 10e6);
  const oneLine = 'y'.repeat(10e6);
  const limits = { maxLines: 400, maxBytes: 32 * 1024 };
  const truncLines = time(() => void truncateOutput(manyLines, limits), 11);
  const truncOne = time(() => void truncateOutput(oneLine, limits), 11);
  results.truncate_10mb_lines_ms = truncLines;
  results.truncate_10mb_single_line_ms = truncOne;
  rows.push(['truncate 10 MB output (333K lines)', `${truncLines.toFixed(2)} ms`, '≤ 5 ms']);
  rows.push(['truncate 10 MB output (one line)', `${truncOne.toFixed(2)} ms`, '≤ 5 ms']);
  // What the recorder does: the output is scanned in slices (hash, lines, UTF-8; event-loop turns
  // between them), then truncated from its two ends only.
  for (const [name, text] of [['333K lines', manyLines], ['one line', oneLine]] as const) {
    const scan = await scanOutput(text);
    const ms = time(() => void truncateMeasured(scan, limits), 51);
    const scanMs = await timeAsync(async () => void (await scanOutput(scan.bytes)), 5);
    const key = name === 'one line' ? 'single_line' : 'lines';
    results[`truncate_measured_10mb_${key}_ms`] = ms;
    results[`scan_10mb_${key}_ms`] = scanMs;
    rows.push([`truncate measured 10 MB output (${name}), two ends`, `${ms.toFixed(3)} ms`, '≤ 5 ms']);
    rows.push([`scan 10 MB output (${name}) in 4 MiB slices`, `${scanMs.toFixed(2)} ms`, 'sliced']);
  }

  const width = Math.max(...rows.map((r) => r[0].length));
  console.log(`${'measure'.padEnd(width)}  ${'median'.padStart(12)}  target`);
  for (const [name, value, target] of rows) console.log(`${name.padEnd(width)}  ${value.padStart(12)}  ${target}`);
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'core.json'),
    JSON.stringify({ date: new Date().toISOString(), machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version }, results }, null, 2) + '\n',
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
