/**
 * Replay at scale: synthetic agent runs of 1,000, 10,000 and 50,000 messages replayed through the
 * context session (Tally's strategies, 128K window) into a real sql.js store on disk.
 * Reports seconds, messages per second, bytes stored and peak RSS, and whether time and store size
 * grow linearly with the run. Writes bench/results/replayScale.json.
 * Run: node -r ./test/register.cjs bench/replayScale.bench.ts [sizes…]   (default: 1000 10000 50000)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import type { Message } from '../src/core/model/message';
import { openStore } from '../src/node/store';
import { sizesFromArgs } from './sizes';
import { policyNamed } from '../src/core/replay/baselines';
import { replayRun } from '../src/core/replay/replay';
import { call, logOutput, msg, prng } from '../test/support/syntheticSession';
import { bytesUnder } from '../test/support/folderBytes';

/** A run of about `count` messages: a task, then steps of assistant + tool call + output, some large. */
function syntheticRun(count: number, seed: number): Message[] {
  const random = prng(seed);
  const messages: Message[] = [msg({ role: 'system', content: 'You are a coding agent.' }), msg({ role: 'user', content: 'Fix the failing build in src/math.ts and run the tests.' })];
  while (messages.length < count) {
    const step = messages.length;
    const c = call(random() < 0.5 ? 'run_command' : 'read_file', random() < 0.5 ? { command: `npm test -- --grep case${step}` } : { path: `src/module${step % 97}.ts` });
    messages.push(msg({ role: 'assistant', content: `Step ${step}: checking the next module.`, toolCalls: [c] }));
    const lines = random() < 0.15 ? 200 + Math.floor(random() * 400) : 3 + Math.floor(random() * 30);
    messages.push(msg({ role: 'tool', content: logOutput(random, lines, random() < 0.2), toolCallId: c.id }));
    if (random() < 0.02) messages.push(msg({ role: 'user', content: `Also keep module${step % 97} backwards compatible.` }));
  }
  return messages;
}


async function main() {
  const counts = sizesFromArgs();
  const counter = getTokenCounter();
  const rows = [];
  for (const count of counts) {
    const messages = syntheticRun(count, count);
    const folder = mkdtempSync(join(tmpdir(), 'tally-replay-scale-'));
    // As the replay CLI does: its store is thrown away at exit, so it lives in memory
    // (REPLAY_STORE=disk: on disk without fsync, as before).
    const store = await openStore(folder, process.env.REPLAY_STORE === 'disk' ? { debounceMs: 1e9, sync: false } : { inMemory: true });
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const started = performance.now();
    const report = await replayRun({ label: `synthetic-${count}`, messages, policy: policyNamed('tally'), store, counter, contextWindow: 128_000, maxOutputTokens: 8_192 });
    await store.flush();
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const storeBytes = bytesUnder(folder);
    await store.close();
    rmSync(folder, { recursive: true, force: true });
    const row = { messages: messages.length, requests: report.requests, seconds: +seconds.toFixed(2), messagesPerSecond: Math.round(messages.length / seconds), storeMiB: +(storeBytes / 2 ** 20).toFixed(1), peakRssMiB: Math.round(peakRss / 2 ** 20), overWindow: report.violations.overWindow, brokenPairs: report.violations.brokenPairs };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  const first = rows[0];
  const growth = rows.slice(1).map((r) => ({ messages: r.messages, timeRatio: +(r.seconds / first.seconds).toFixed(1), storeRatio: +(r.storeMiB / first.storeMiB).toFixed(1), sizeRatio: +(r.messages / first.messages).toFixed(1) }));
  const result = { date: new Date().toISOString(), window: 128_000, rows, growth, targets: { linear: 'time and store size grow in proportion to the messages', tenThousandUnderSeconds: 10, messagesPerSecondAtLeast: 1_500 } };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'replayScale.json'), JSON.stringify(result, null, 2) + '\n');
  console.table(rows);
  console.table(growth);
}

void main();
