/**
 * Chat refresh at 10 / 1,000 / 10,000 messages: what the chat view does ~100 ms after each
 * change. "whole" is the refresh as it was: read the transcript, compaction events and usage
 * from the store, rebuild every entry and post the whole state. "incremental" is the refresh as
 * it is: reads answered from memory, stored messages' entries reused, and only the change posted.
 * Both run in this process on the same real sql.js store, after a new message is appended each
 * time, so the ratio holds on a noisy machine. The posted bytes are the JSON the webview receives.
 * Writes bench/results/chatRefresh.json. Run: node -r ./test/register.cjs bench/chatRefresh.bench.ts [counts…]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { cpus, tmpdir } from 'os';
import { join, resolve } from 'path';
import { assistantMessage, toolResultMessage, userMessage } from '../src/core/model/factories';
import type { Message } from '../src/core/model/message';
import type { SessionStore, TurnUsageRecord } from '../src/core/ports/sessionStore';
import { SentChatEntries } from '../src/host/chatEntriesPatch';
import { buildChatState, ChatEntryMemo } from '../src/host/chatState';
import { withSessionReadCache } from '../src/host/sessionReadCache';
import { openStore } from '../src/node/store';
import { median } from './median';

const ROOT = resolve(__dirname, '..');
const ROUNDS = 15;

const visible = (m: Message, at: number): Message => ({ ...m, createdAt: at, userVisible: true, agentVisible: true });

/** One agent step: the model's call and its result (a short command output). */
function step(i: number, at: number): Message[] {
  const call = { id: `c${i}`, name: 'run_command', arguments: JSON.stringify({ command: `npm test -- --grep case-${i}` }) };
  return [visible(assistantMessage(`Step ${i}: running the **tests** for case ${i}.`, [call], { id: `a${i}` }), at), visible(toolResultMessage(call, `PASS case-${i}\n`.repeat(8), { id: `t${i}` }), at + 1)];
}

function usage(sessionId: string, i: number, at: number): TurnUsageRecord {
  return { id: `r${i}`, sessionId, requestIndex: i, createdAt: at, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: 1_000 + i, reportedInputTokens: 1_000 + i, components: { system: 900, skills: 0, tools: 100, messages: i, toolResults: 0, summaries: 0 }, items: [{ messageId: `a${i}`, role: 'assistant', kind: 'assistant', tokens: 20, badges: [], preview: 'step' }] } as TurnUsageRecord;
}

async function fill(store: SessionStore, sessionId: string, messages: number): Promise<number> {
  let at = 1;
  await store.putMessages(sessionId, [visible(userMessage('Make the whole test suite pass.', { id: 'u0' }), at++)]);
  let i = 0;
  while (i * 2 + 1 < messages) {
    const batch: Message[] = [];
    for (let k = 0; k < 100 && i * 2 + 1 < messages; k++, i++) {
      batch.push(...step(i, at));
      at += 2;
      if (i % 10 === 0) await store.addTurnUsage(usage(sessionId, i, at));
    }
    await store.putMessages(sessionId, batch);
  }
  await store.flush();
  return i;
}

async function measure(messages: number): Promise<Record<string, number>> {
  const folder = mkdtempSync(join(tmpdir(), 'tally-chat-refresh-'));
  const raw = await openStore(folder, { debounceMs: 50 });
  const session = await raw.createSession({ title: 'long session' });
  let next = await fill(raw, session.id, messages);
  const cached = withSessionReadCache(raw);
  const memo = new ChatEntryMemo();
  const sent = new SentChatEntries();

  const whole = async () => {
    const [transcript, compactions, sessions, usageList] = await Promise.all([raw.loadTranscript(session.id), raw.listCompactionEvents(session.id), raw.listSessions(), raw.listTurnUsage(session.id)]);
    return JSON.stringify({ type: 'state', state: buildChatState({ transcript, compactions, sessions, usage: usageList }) }).length;
  };
  const incremental = async () => {
    const [transcript, compactions, sessions, usageList] = await Promise.all([cached.loadTranscript(session.id), cached.listCompactionEvents(session.id), cached.listSessions(), cached.listTurnUsage(session.id, { items: false })]);
    const { entries, ...rest } = buildChatState({ transcript, compactions, sessions, usage: usageList, memo });
    return JSON.stringify({ type: 'update', state: rest, patch: sent.change(entries) }).length;
  };
  await incremental(); // the first refresh after opening sends everything once
  const times: Record<'whole' | 'incremental', number[]> = { whole: [], incremental: [] };
  const bytes: Record<'whole' | 'incremental', number[]> = { whole: [], incremental: [] };
  // Each way in its own loop, so one's garbage is not collected on the other's time.
  for (const [name, refresh] of [['incremental', incremental], ['whole', whole]] as const) {
    for (let round = 0; round < ROUNDS; round++) {
      await cached.putMessages(session.id, step(next, 10_000_000 + next * 2));
      next++;
      const start = process.hrtime.bigint();
      const size = await refresh();
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      bytes[name].push(size);
    }
  }
  await raw.close();
  rmSync(folder, { recursive: true, force: true });
  return {
    messages,
    wholeMs: +median(times.whole).toFixed(2),
    incrementalMs: +median(times.incremental).toFixed(2),
    ratio: +(median(times.whole) / median(times.incremental)).toFixed(1),
    wholeBytes: median(bytes.whole),
    incrementalBytes: median(bytes.incremental),
  };
}

async function main(): Promise<void> {
  const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const rows = [];
  await measure(200); // warms the JIT, so the first size measured is not charged for compiling
  for (const messages of counts.length ? counts : [10, 1_000, 10_000]) {
    const row = await measure(messages);
    rows.push(row);
    console.log(`${String(messages).padStart(6)} msgs  whole ${String(row.wholeMs).padStart(8)} ms ${String(row.wholeBytes).padStart(9)} B   incremental ${String(row.incrementalMs).padStart(6)} ms ${String(row.incrementalBytes).padStart(6)} B   ×${row.ratio}`);
  }
  writeFileSync(join(ROOT, 'bench', 'results', 'chatRefresh.json'), JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, node: process.version, rounds: ROUNDS, target: 'refresh ≤ 10 ms at 10,000 messages', rows }, null, 2) + '\n');
}

void main();
