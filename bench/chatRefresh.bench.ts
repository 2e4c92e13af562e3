/**
 * Chat refresh at 10 / 1,000 / 10,000 messages: what the chat view does ~100 ms after each
 * change. "whole" is the refresh as it was first: read the transcript, compaction events and usage
 * from the store, rebuild every entry and post the whole state. "incremental" is the refresh as
 * it is: the session view, read once when the session opened, folds the step's messages into the
 * chat's entries as they are written, and the refresh posts the entries the fold added or changed.
 * Both run in this process on the same real sql.js store, after a new step is written each time,
 * so the ratio holds on a noisy machine. The posted bytes are the JSON the webview receives.
 * Writes bench/results/chatRefresh.json. Run: node -r ./test/register.cjs bench/chatRefresh.bench.ts [counts…]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { cpus, tmpdir } from 'os';
import { join, resolve } from 'path';
import type { RequestUsageRecord } from '../src/core/model/records';
import { ChatEntriesSent } from '../src/host/chat/chatEntriesPatch';
import { buildChatState, chatHeader } from '../src/host/chat/chatState';
import { SessionView } from '../src/host/session/sessionView';
import { openStore } from '../src/node/store';
import { agentStep, fillAgentSession } from './agentSteps';
import { median } from './median';

const ROOT = resolve(__dirname, '..');
const ROUNDS = 15;

function usage(sessionId: string, i: number, at: number): RequestUsageRecord {
  return { id: `r${i}`, sessionId, requestIndex: i, createdAt: at, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: 1_000 + i, reportedInputTokens: 1_000 + i, components: { system: 900, skills: 0, tools: 100, messages: i, toolResults: 0, summaries: 0 }, items: [{ messageId: `a${i}`, role: 'assistant', kind: 'assistant', tokens: 20, badges: [], preview: 'step' }] } as RequestUsageRecord;
}

async function measure(messages: number): Promise<Record<string, number>> {
  const folder = mkdtempSync(join(tmpdir(), 'tally-chat-refresh-'));
  const raw = await openStore(folder, { debounceMs: 50 });
  const session = await raw.createSession({ title: 'long session' });
  // A request's usage every 10 steps, recorded after the step (as the chat lists turns).
  let next = await fillAgentSession(raw, session.id, messages, async (i, at) => {
    if (i % 10 === 0) await raw.addRequestUsage(usage(session.id, i, at + 2));
  });
  const view = await SessionView.open(raw, session.id, 200);
  const sent = new ChatEntriesSent();
  let first = true;

  const whole = async () => {
    const [transcript, compactions, sessions, usageList] = await Promise.all([raw.loadTranscript(session.id), raw.listCompactionEvents(session.id), raw.listSessions(), raw.listRequestUsage(session.id)]);
    return JSON.stringify({ type: 'state', state: buildChatState({ transcript, compactions, sessions, usage: usageList }) }).length;
  };
  const incremental = async () => {
    // As the chat view does: the session list is read, the rest comes from the view.
    const state = chatHeader({ sessions: await raw.listSessions(), earlierUnloaded: view.earlierUnloaded, usage: view.usageFigures });
    if (first) {
      first = false;
      return JSON.stringify({ type: 'state', state: { ...state, entries: sent.whole(view.chat, {}) } }).length;
    }
    return JSON.stringify({ type: 'update', state, patch: sent.change(view.chat, {}) }).length;
  };
  await incremental(); // the first refresh after opening sends everything once
  const times: Record<'whole' | 'incremental', number[]> = { whole: [], incremental: [] };
  const bytes: Record<'whole' | 'incremental', number[]> = { whole: [], incremental: [] };
  // Each way in its own loop, so one's garbage is not collected on the other's time.
  for (const [name, refresh] of [['incremental', incremental], ['whole', whole]] as const) {
    for (let round = 0; round < ROUNDS; round++) {
      const step = agentStep(next, 10_000_000 + next * 2);
      await raw.putMessages(session.id, step);
      next++;
      const start = process.hrtime.bigint();
      // The session tells its view what it wrote; the fold is part of the refresh's cost here.
      if (name === 'incremental') view.apply({ type: 'messages', appended: step, replaced: [] });
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
