/**
 * A whole turn with N messages already in context: the user's message appended, the request
 * planned (ContextSession.nextRequest), its usage recorded (recordResponse) and everything saved
 * to a real sql.js store on disk (flush). Median of 7 turns after 2 warm-up turns, per size.
 * Writes bench/results/wholeTurn.json.
 * Run: node -r ./test/register.cjs bench/wholeTurn.bench.ts [sizes…]   (default: 1000 10000 50000)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import type { Message } from '../src/core/model/message';
import { policyNamed } from '../src/core/replay/baselines';
import { ContextSession } from '../src/core/context/contextSession';
import { DEFAULT_SETTINGS } from '../src/core/settings';
import { openStore } from '../src/node/store';
import { sizesFromArgs } from './sizes';
import { call, logOutput, msg, prng } from '../test/support/syntheticSession';

/** `count` messages of agent work: assistant + tool call + a short log output, in pairs. */
function history(count: number): Message[] {
  const random = prng(count);
  const out: Message[] = [msg({ role: 'user', content: 'Fix the failing build and run the tests.', createdAt: 1 })];
  while (out.length < count) {
    const c = call('run_command', { command: `npm test -- --grep case${out.length}` });
    out.push(msg({ role: 'assistant', content: `Step ${out.length}: checking the next module.`, toolCalls: [c], createdAt: out.length + 1 }));
    out.push(msg({ role: 'tool', content: logOutput(random, 3 + Math.floor(random() * 5), false), toolCallId: c.id, createdAt: out.length + 1 }));
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const counts = sizesFromArgs();
  const counter = getTokenCounter();
  const rows = [];
  for (const count of counts) {
    const folder = mkdtempSync(join(tmpdir(), 'tally-turn-'));
    const store = await openStore(folder, { debounceMs: 1e9 });
    const { id } = await store.createSession({ title: `turn-${count}` });
    await store.putMessages(id, history(count));
    await store.flush();
    const contextWindow = 20_000_000; // everything stays in context: the turn's cost at this size
    const policy = policyNamed('tally');
    const settings = policy.settings({ ...DEFAULT_SETTINGS, contextWindow, maxOutputTokens: 8_192 });
    const openStarted = performance.now();
    const session = await ContextSession.open({ store, sessionId: id, settings, counter, strategies: policy.strategies, contextWindow, maxOutputTokens: 8_192 });
    const openMs = performance.now() - openStarted;
    const turns: Array<{ plan: number; record: number; write: number; total: number }> = [];
    for (let t = 0; t < 9; t++) {
      const started = performance.now();
      await session.appendUser(`Turn ${t}: and the next module?`);
      const request = await session.nextRequest({ fixed: { system: 100, skills: 0, tools: 300 } });
      const planned = performance.now();
      await session.recordResponse(request, { model: 'bench' });
      const recorded = performance.now();
      await store.flush();
      const written = performance.now();
      if (t >= 2) turns.push({ plan: planned - started, record: recorded - planned, write: written - recorded, total: written - started });
    }
    await store.close();
    rmSync(folder, { recursive: true, force: true });
    const row = {
      messages: count,
      openMs: Math.round(openMs),
      planMs: +median(turns.map((t) => t.plan)).toFixed(1),
      recordMs: +median(turns.map((t) => t.record)).toFixed(1),
      writeMs: +median(turns.map((t) => t.write)).toFixed(1),
      turnMs: +median(turns.map((t) => t.total)).toFixed(1),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  const result = { date: new Date().toISOString(), rows, targets: { turnMsAt10000: 20, turnMsAt50000: 60 } };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'wholeTurn.json'), JSON.stringify(result, null, 2) + '\n');
  console.table(rows);
}

void main();
