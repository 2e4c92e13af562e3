/**
 * The chat's host work for one agent step at 10 / 1,000 / 10,000 messages. "whole" reads the
 * transcript, compaction events and usage back from the store, folds every entry and serializes
 * the whole state (what a reload of the webview costs). "incremental" is what the chat costs as a
 * session is written: the step's messages go into the session's state (the fold and its patch),
 * and the patch is serialized as the chat view posts it. Both run in this process on the same real
 * sql.js store, after a new step is written each time; the posted bytes are the JSON the webview
 * receives. Writes bench/results/chatRefresh.json. Run: node -r ./test/register.cjs bench/chatRefresh.bench.ts [counts…]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { cpus, tmpdir } from 'os';
import { join, resolve } from 'path';
import type { RequestUsageRecord } from '../src/core/model/records';
import { readSessionState } from '../src/host/sessionState/sessionReads';
import type { SessionPatch } from '../src/host/sessionState/sessionPatch';
import type { HostToChat } from '../src/protocol/chat';
import { openStore } from '../src/node/store';
import { agentStep, fillAgentSession } from './agentSteps';
import { median } from './median';

const ROOT = resolve(__dirname, '..');
const ROUNDS = 15;

function usage(sessionId: string, i: number, at: number): RequestUsageRecord {
  return { id: `r${i}`, sessionId, requestIndex: i, createdAt: at, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: 1_000 + i, reportedInputTokens: 1_000 + i, components: { system: 900, skills: 0, tools: 100, messages: i, toolResults: 0, summaries: 0 }, items: [{ messageId: `a${i}`, role: 'assistant', kind: 'assistant', tokens: 20, badges: [], preview: 'step' }] } as RequestUsageRecord;
}

/** The messages the chat view posts for a patch (see host/chat/chatFeed.ts). */
function posts(patch: SessionPatch): HostToChat[] {
  const { streamed, entries, header } = patch.chat;
  const out: HostToChat[] = [];
  if (streamed) out.push({ type: 'delta', entryId: streamed.entryId, text: streamed.text });
  if (entries || header) out.push({ type: 'update', ...(header ? { state: header } : {}), ...(entries ? { patch: entries } : {}) });
  return out;
}

async function measure(messages: number): Promise<Record<string, number>> {
  const folder = mkdtempSync(join(tmpdir(), 'tally-chat-refresh-'));
  const raw = await openStore(folder, { debounceMs: 50 });
  const session = await raw.createSession({ title: 'long session' });
  // A request's usage every 10 steps, recorded after the step (as the chat lists turns).
  let next = await fillAgentSession(raw, session.id, messages, async (i, at) => {
    if (i % 10 === 0) await raw.addRequestUsage(usage(session.id, i, at + 2));
  });
  const identity = { info: { id: session.id, title: session.title } };
  const state = await readSessionState(raw, identity, 200);

  const whole = async () => {
    const all = await readSessionState(raw, identity, Number.MAX_SAFE_INTEGER);
    return JSON.stringify({ type: 'state', state: { ...all.chatState(), sessions: [] } }).length;
  };
  const incremental = async (step: ReturnType<typeof agentStep>) => {
    // The session tells its state what it wrote; the fold and its patch are the chat's cost.
    const patch = state.apply({ kind: 'change', change: { type: 'messages', appended: step, replaced: [] } });
    return posts(patch).reduce((sum, message) => sum + JSON.stringify(message).length, 0);
  };
  JSON.stringify({ type: 'state', state: state.chatState() }); // the chat's first state
  const times: Record<'whole' | 'incremental', number[]> = { whole: [], incremental: [] };
  const bytes: Record<'whole' | 'incremental', number[]> = { whole: [], incremental: [] };
  // Each way in its own loop, so one's garbage is not collected on the other's time.
  for (const name of ['incremental', 'whole'] as const) {
    for (let round = 0; round < ROUNDS; round++) {
      const step = agentStep(next, 10_000_000 + next * 2);
      await raw.putMessages(session.id, step);
      next++;
      const start = process.hrtime.bigint();
      const size = name === 'incremental' ? await incremental(step) : await whole();
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      if (name === 'whole') state.apply({ kind: 'change', change: { type: 'messages', appended: step, replaced: [] } });
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
  writeFileSync(join(ROOT, 'bench', 'results', 'chatRefresh.json'), JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, node: process.version, rounds: ROUNDS, target: 'the chat\'s work for a step ≤ 10 ms at 10,000 messages', rows }, null, 2) + '\n');
}

void main();
