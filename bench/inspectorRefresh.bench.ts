/**
 * The inspector's host work for one agent step at 1,000 / 10,000 messages. A session of that many
 * messages (one request per agent step, a few offloaded results) sits in a real sql.js store on
 * disk, opened the way the host opens it (a ContextSession resumed from it, its state read once and
 * kept by the session's writes). Each round records one new agent step through the session (the
 * call, its result, the request and its usage); for each patch of the session's state the step
 * makes, the inspector's work is timed as its feed does it (the parts the patch touched, the
 * update, the message serialized), and summed over the step. Then the parts of that work are timed
 * one by one after a step (the state's parts, the session's plan, the update).
 * Writes bench/results/inspectorRefresh.json. Run: node -r ./test/register.cjs bench/inspectorRefresh.bench.ts [counts…]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { cpus, tmpdir } from 'os';
import { join, resolve } from 'path';
import { getTokenCounter } from '../src/core/accounting/tokenizer';
import type { RequestUsageRecord } from '../src/core/model/records';
import { ContextSession } from '../src/core/context/contextSession';
import { withSettings } from '../src/core/settings';
import { inspectorParts } from '../src/host/inspector/inspectorState';
import { InspectorUpdates } from '../src/host/inspector/inspectorUpdates';
import type { ActiveSession } from '../src/host/sessionState/sessionPorts';
import { readSessionState, SessionReads } from '../src/host/sessionState/sessionReads';
import type { InspectorChange } from '../src/host/sessionState/sessionPatch';
import { openStore } from '../src/node/store';
import { fillAgentSession, stepCall } from './agentSteps';
import { median } from './median';

const ROOT = resolve(__dirname, '..');
const ROUNDS = 11;
const FIXED = { system: 900, skills: 0, tools: 100 };
/** Every this many steps, the step's result was offloaded (a big output kept in the blob store). */
const OFFLOAD_EVERY = 50;

/** The request that produced step i, as the ledger records it. */
function usage(sessionId: string, i: number, at: number): RequestUsageRecord {
  return {
    id: `r${i}`,
    sessionId,
    requestIndex: i,
    createdAt: at,
    model: 'claude-sonnet-4-5',
    contextWindow: 1_000_000,
    maxOutputTokens: 8_000,
    estimatedInputTokens: 1_000 + 40 * i,
    reportedInputTokens: 1_020 + 40 * i,
    reportedOutputTokens: 30,
    components: { system: 900, skills: 0, tools: 100, messages: 40 * i, toolResults: 0, summaries: 0 },
    itemCount: 2 * i + 1,
    items: [],
  } as RequestUsageRecord;
}

async function measure(messages: number): Promise<Record<string, number>> {
  const folder = mkdtempSync(join(tmpdir(), 'tally-inspector-refresh-'));
  const raw = await openStore(folder, { debounceMs: 50 });
  const info = await raw.createSession({ title: 'long session' });
  let next = await fillAgentSession(raw, info.id, messages, async (i, at) => {
    await raw.addRequestUsage(usage(info.id, i, at));
    if (i % OFFLOAD_EVERY === 0) await raw.putBlob(info.id, { toolName: 'run_command', toolCallId: `c${i}`, content: Buffer.from(`FAIL case-${i}\n`.repeat(2_000)) });
  });
  const store = raw;
  const [contextSession, state] = await Promise.all([ContextSession.open({ store, sessionId: info.id, settings: withSettings({ contextWindow: 1_000_000, maxOutputTokens: 8_000 }), counter: getTokenCounter('o200k_base'), contextWindow: 1_000_000, maxOutputTokens: 8_000, fixed: FIXED }), readSessionState(store, { info }, 200)]);
  contextSession.onChange((change) => state.apply({ kind: 'change', change }));
  state.apply({ kind: 'resumed', context: contextSession });
  const reads = new SessionReads(store, state);
  await reads.seedTitles();
  const session: ActiveSession = { info, contextSession, state, reads };

  /** One agent step through the session, as the agent loop records it. */
  const recordStep = async () => {
    await contextSession.appendAssistant(`Step ${next}: running the **tests** for case ${next}.`, [stepCall(next)]);
    await contextSession.recordToolResult(stepCall(next), `PASS case-${next}\n`.repeat(8));
    const request = await contextSession.nextRequest({ fixed: FIXED });
    await contextSession.recordResponse(request, { model: 'claude-sonnet-4-5', reported: { inputTokens: request.plan.budget.used + 20, outputTokens: 30 } });
    next++;
  };
  // As the feed does: after the first whole state, each patch posts what it touched.
  const updates = new InspectorUpdates();
  let stepMs = 0;
  let stepBytes = 0;
  const post = (change: InspectorChange) => {
    const start = process.hrtime.bigint();
    const message = updates.update(inspectorParts(session), change);
    if (message) stepBytes += JSON.stringify(message).length;
    stepMs += Number(process.hrtime.bigint() - start) / 1e6;
  };
  // Where the time goes, each part timed on its own after the same new step: the state's parts
  // (no store read), the session's plan of the next request (budget and every item), and the update.
  const parts = {
    state: async () => inspectorParts(session).current(),
    plan: async () => contextSession.planRequest(FIXED),
    serialize: async () => JSON.stringify(updates.update(inspectorParts(session), { context: true, requests: true })),
  };

  await recordStep();
  const whole = updates.whole(inspectorParts(session));
  const firstBytes = JSON.stringify(whole).length; // the panel's first, whole state
  const stop = state.onPatch((patch) => post(patch.inspector));
  const times: number[] = [];
  const sizes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    stepMs = stepBytes = 0;
    await recordStep();
    times.push(stepMs);
    sizes.push(stepBytes);
  }
  stop();
  const partMs: Record<string, number> = {};
  for (const [name, part] of Object.entries(parts)) {
    const partTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await recordStep();
      const start = process.hrtime.bigint();
      await part();
      partTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    partMs[`${name}Ms`] = +median(partTimes).toFixed(2);
  }
  await raw.close();
  rmSync(folder, { recursive: true, force: true });
  const shown = whole.type === 'state' ? whole.state : undefined;
  return { messages, refreshMs: +median(times).toFixed(2), minMs: +Math.min(...times).toFixed(2), postedBytes: median(sizes), firstStateBytes: firstBytes, items: shown?.current.length ?? 0, requests: state.records.requests.length, ...partMs };
}

async function main(): Promise<void> {
  const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const rows = [];
  await measure(200); // warms the JIT, so the first size measured is not charged for compiling
  for (const messages of counts.length ? counts : [1_000, 10_000]) {
    const row = await measure(messages);
    rows.push(row);
    console.log(`${String(messages).padStart(6)} msgs  refresh ${String(row.refreshMs).padStart(7)} ms (min ${row.minMs})  posted ${String(row.postedBytes).padStart(8)} B  first state ${row.firstStateBytes} B | state ${row.stateMs}  plan ${row.planMs}  serialize ${row.serializeMs} ms`);
  }
  writeFileSync(join(ROOT, 'bench', 'results', 'inspectorRefresh.json'), JSON.stringify({ date: new Date().toISOString(), cpus: cpus().length, node: process.version, rounds: ROUNDS, target: 'inspector refresh ≤ 10 ms at 10,000 messages', rows }, null, 2) + '\n');
}

void main();
