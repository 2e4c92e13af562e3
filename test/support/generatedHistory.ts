import { strict as assert } from 'assert';
import { getTokenCounter } from '../../src/core/accounting/tokenizer';
import type { CompactOptions } from '../../src/core/compaction/compactor';
import { ContextSession } from '../../src/core/context/contextSession';
import { forkSession } from '../../src/core/context/forkSession';
import { RewindRefused } from '../../src/core/context/rewind';
import { attachmentMessage } from '../../src/core/model/factories';
import { compactionHead } from '../../src/core/model/compactionHead';
import type { Message, ReasoningBlock, ToolCall } from '../../src/core/model/message';
import type { SessionStore } from '../../src/core/ports/sessionStore';
import { withSettings } from '../../src/core/settings';
import { checkChatMarks, checkRequestable, checkRewound } from './historyChecks';
import { covered, HistoryModel, sentForm } from './historyModel';
import type { StoreReloads } from './storeReloads';
import { prng } from './syntheticSession';

const counter = getTokenCounter('o200k_base');
const FIXED = { system: 300, skills: 0, tools: 200 };
/** A small window, so automatic compactions happen within a few turns; a small offload threshold, so results are stored. */
const settings = withSettings({ contextWindow: 3_000, maxOutputTokens: 500, compactTrigger: 0.55, offloadThresholdBytes: 900, offloadPreviewBytes: 300, masking: { keepLast: 2, minBatchTokens: 60 }, toolSummaryAfterTurns: 3 });
const STRATEGIES = ['tool-result-masking', 'tool-call-summarization', 'threshold-summarization', 'goal-batch', 'emergency-drop'];
const WORDS = 'parser config logger cache route schema token buffer index queue retry timeout socket build test lint'.split(' ');

/** What one generated case did, for the run's tally. */
export interface CaseStats {
  turns: number;
  compactions: number;
  rewinds: number;
  refused: number;
  unsummarized: number;
  forks: number;
  resumes: number;
}

interface Case {
  random: () => number;
  reloads: StoreReloads;
  store: SessionStore;
  session: ContextSession;
  model: HistoryModel;
  clock: { now: number };
  stats: CaseStats;
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)];
const words = (random: () => number, n: number) => Array.from({ length: n }, () => pick(random, WORDS)).join(' ');

function open(c: Pick<Case, 'store' | 'clock'>, sessionId: string): Promise<ContextSession> {
  return ContextSession.open({ store: c.store, sessionId, settings, counter, contextWindow: settings.contextWindow, maxOutputTokens: settings.maxOutputTokens, now: () => (c.clock.now += 7) });
}

/**
 * One generated session: turns (attachments, tool calls, results large enough to be stored,
 * thinking with signatures), compactions at random points (automatic before a request, manual
 * with one strategy or all, a focus, an edited summary), pins, rewinds to any user message, forks
 * from any request (the case may go on in the fork), and resumes from the store on disk, each
 * judged as it happens. A resume waits for the other cases running beside it (see StoreReloads).
 */
export async function runGeneratedCase(seed: number, reloads: StoreReloads): Promise<CaseStats> {
  const random = prng(seed);
  const clock = { now: 1_000_000 + seed * 1_000 };
  const store = reloads.store;
  const { id } = await store.createSession({ title: `case ${seed}` });
  const c: Case = { random, reloads, store, clock, model: new HistoryModel(), stats: { turns: 0, compactions: 0, rewinds: 0, refused: 0, unsummarized: 0, forks: 0, resumes: 0 }, session: undefined! };
  c.session = await open(c, id);
  await turn(c);
  const operations = 6 + Math.floor(random() * 11);
  const trace = process.env.TALLY_HISTORY_TRACE ? (what: string) => console.log(what, c.session.messages.map((m) => `${m.id.slice(-4)}:${m.kind}${m.pinned ? '*' : ''}@${m.createdAt % 100000}${m.meta?.placedAt ? `/${m.meta.placedAt % 100000}` : ''}`).join(' ')) : undefined;
  for (let n = 0; n < operations; n++) {
    const roll = random();
    const name = roll < 0.38 ? 'turn' : roll < 0.55 ? 'compact' : roll < 0.6 ? 'pin' : roll < 0.84 ? 'rewind' : roll < 0.91 ? 'fork' : 'resume';
    trace?.(name);
    if (name === 'turn') await turn(c);
    else if (name === 'compact') await compact(c);
    else if (name === 'pin') await pin(c);
    else if (name === 'rewind') await rewind(c);
    else if (name === 'fork') await fork(c);
    else await resume(c);
    c.model.see(c.session.sessionId, c.session.messages);
    checkRequestable(c.model, c.session);
  }
  await checkChatMarks(c.store, c.session);
  await checkCompactionHeads(c.store, c.session.sessionId);
  return c.stats;
}

/** What an open lists of the session's compactions (their heads) is what the whole records give, after any mix of operations. */
async function checkCompactionHeads(store: SessionStore, sessionId: string): Promise<void> {
  const [heads, whole] = await Promise.all([store.listCompactionHeads(sessionId), store.listCompactionEvents(sessionId)]);
  assert.deepEqual(JSON.parse(JSON.stringify(heads)), JSON.parse(JSON.stringify(whole.map(compactionHead))), 'the heads listed are those of the whole records');
}

async function request(c: Case): Promise<void> {
  const planned = await c.session.nextRequest({ fixed: FIXED });
  c.model.see(c.session.sessionId, c.session.messages);
  if (planned.compaction?.status === 'complete') c.stats.compactions++;
  if (planned.status === 'blocked') return;
  c.model.sent(c.session.sessionId, planned.requestIndex, planned.plan.messages);
  await c.session.recordResponse(planned, { model: 'test-model', reported: { inputTokens: planned.plan.budget.used, outputTokens: 20 } });
}

function thinking(c: Case): ReasoningBlock[] {
  const roll = c.random();
  if (roll < 0.6) return [];
  const signed: ReasoningBlock = { format: 'anthropic', text: `I should look at the ${words(c.random, 6)} first.`, signature: `sig${Math.floor(c.random() * 1e9).toString(36)}==` };
  return roll < 0.85 ? [signed] : [signed, { format: 'anthropic', text: '', redactedData: `EncRedacted${Math.floor(c.random() * 1e9).toString(36)}` }];
}

function output(c: Case): string {
  const lines = c.random() < 0.2 ? 40 + Math.floor(c.random() * 60) : 2 + Math.floor(c.random() * 8);
  return Array.from({ length: lines }, (_, i) => `${i + 1}: ${words(c.random, 5)}`).join('\n');
}

/** A user turn: the message (with attachments, sometimes), then one to three requests, each answered with tool calls and their results, or the final text. */
async function turn(c: Case): Promise<void> {
  const { random, session, model } = c;
  const attachments: Message[] = random() < 0.25 ? [attachmentMessage({ kind: 'file', label: 'src/app.ts', path: 'src/app.ts' }, `src/app.ts\n${words(random, 30)}`)] : [];
  const before = [...session.messages];
  const user = await session.appendUser(`please ${words(random, 4 + Math.floor(random() * 10))}`, attachments);
  model.before.set(`${session.sessionId}\u0000${user.id}`, before);
  model.userSent(session.sessionId, user);
  const at = session.messages.findIndex((m) => m.id === user.id);
  model.attachmentsOf.set(user.id, session.messages.slice(at - attachments.length, at).map((m) => m.id));
  model.see(session.sessionId, session.messages);
  c.stats.turns++;
  const steps = 1 + Math.floor(random() * 3);
  for (let step = 0; step < steps; step++) {
    await request(c);
    if (step === steps - 1) {
      await session.appendAssistant(`Done: ${words(random, 8)}.`, [], thinking(c));
      break;
    }
    const calls: ToolCall[] = Array.from({ length: 1 + Math.floor(random() * 2) }, (_, k) => ({ id: `call_${Math.floor(random() * 1e12).toString(36)}_${k}`, name: pick(random, ['read_file', 'run_command', 'search_text']), arguments: JSON.stringify({ path: `src/${pick(random, WORDS)}.ts` }) }));
    await session.appendAssistant(random() < 0.5 ? '' : `Looking at ${words(random, 3)}.`, calls, thinking(c));
    for (const call of calls) await session.recordToolResult(call, output(c), { isError: random() < 0.1 });
  }
}

/** A manual compaction: every strategy, one of them, with a focus, or a checkpoint with the summary the user edited in the preview. */
async function compact(c: Case): Promise<void> {
  const { random, session } = c;
  const roll = random();
  let options: CompactOptions = { trigger: 'manual' };
  if (roll < 0.35) options = { trigger: 'manual', only: [pick(random, STRATEGIES)] };
  else if (roll < 0.43) options = { trigger: 'manual', only: ['emergency-drop'] };
  else if (roll < 0.53) options = { trigger: 'manual', focus: pick(random, ['read_file', `src/${pick(random, WORDS)}.ts`, 'the failing test']) };
  else if (roll < 0.72) {
    const preview = await session.compact({ trigger: 'manual', dryRun: true, only: ['threshold-summarization'] });
    if (preview.summary === undefined) return;
    options = { trigger: 'manual', only: ['threshold-summarization'], userSummary: { text: `${preview.summary}\nEdited: keep ${words(random, 3)} in mind.`, proposed: preview.summary } };
  }
  const result = await session.compact(options);
  if (result.status === 'complete') c.stats.compactions++;
}

async function pin(c: Case): Promise<void> {
  const visible = c.session.messages.filter((m) => m.agentVisible);
  if (!visible.length) return;
  const target = pick(c.random, visible);
  assert.equal(await c.session.setPinned(target.id, !target.pinned), true);
}

/** A rewind to any user message the session's transcript holds: allowed exactly when the context still stands for it. */
async function rewind(c: Case): Promise<void> {
  const { session, model } = c;
  const users = model.users.get(session.sessionId) ?? [];
  if (!users.length) return;
  const target = pick(c.random, users);
  const before = [...session.messages];
  if (!covered(before).has(target.id)) {
    await assert.rejects(session.rewind(target.id), RewindRefused, 'a message an earlier rewind set aside is refused');
    assert.deepEqual(session.messages.map(sentForm), before.map(sentForm), 'a refused rewind changes nothing');
    c.stats.refused++;
    return;
  }
  // The confirmation's preview (sometimes: it reads the history as the rewind does).
  const planned = c.random() < 0.35 ? await session.planRewind(target.id) : undefined;
  const record = await session.rewind(target.id);
  const after = [...session.messages];
  if (planned) {
    assert.deepEqual(after.map((m) => m.id), planned.messages.map((m) => m.id), 'the rewind leaves what its preview said');
    assert.equal(record.step?.setAside, planned.setAside);
  }
  const cut = Math.min(target.createdAt, ...(model.attachmentsOf.get(target.id) ?? []).map((id) => model.times.get(id) ?? Infinity));
  checkRewound(model, session.sessionId, target.id, cut, before, after);
  c.stats.rewinds++;
  c.stats.unsummarized += record.step?.unsummarized ?? 0;
}

/** A fork from any request the session sent: its context is that request's messages exactly; the case may go on in it. */
async function fork(c: Case): Promise<void> {
  const sent = c.model.requests.get(c.session.sessionId) ?? [];
  if (!sent.length) return;
  const { index, messages } = pick(c.random, sent);
  const forked = await forkSession(c.store, { fromSessionId: c.session.sessionId, fromRequestIndex: index }, { working: c.random() < 0.5 ? c.session.messages : undefined, now: () => (c.clock.now += 7) });
  assert.deepEqual(forked.messages.map(sentForm), messages.map(sentForm), `the fork from request #${index} holds exactly what it sent`);
  const opened = await open(c, forked.info.id);
  assert.deepEqual(opened.planRequest().messages.map(sentForm), messages.map(sentForm), 'the fork, opened, sends what the request sent');
  c.stats.forks++;
  c.model.forked(opened.sessionId, c.session.sessionId, index);
  c.model.see(opened.sessionId, opened.messages);
  if (c.random() < 0.6) {
    c.session = opened;
    for (const m of forked.messages) if (m.role === 'user' && m.kind === 'user') c.model.userSent(opened.sessionId, m);
  }
}

/** The store closed and opened again from disk, the session resumed: its context is what it was. */
async function resume(c: Case): Promise<void> {
  const before = c.session.messages.map(sentForm);
  const sessionId = c.session.sessionId;
  c.store = await c.reloads.reload();
  c.session = await open(c, sessionId);
  assert.deepEqual(c.session.messages.map(sentForm), before, 'a resume gives the context it left');
  await checkCompactionHeads(c.store, sessionId);
  c.stats.resumes++;
}
