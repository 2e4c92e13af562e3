import { strict as assert } from 'assert';
import { transcriptIdsOf } from '../../src/core/compaction/removedItems';
import { validateHistory } from '../../src/core/history/normalize';
import type { Message } from '../../src/core/model/message';
import { anthropicBodyBytes } from '../../src/core/providers/anthropic/anthropicBodyBytes';
import { contextMarks } from '../../src/core/context/contextMarks';
import type { ContextSession } from '../../src/core/context/contextSession';
import { stateOf } from './sessionStates';
import type { SessionStore } from '../../src/core/ports/sessionStore';
import { contentForm, covered, describeSet, hasSignedThinking, sameSet, sentForm, type HistoryModel } from './historyModel';

/**
 * The working context a rewind to before user message `userId` left (`after`), judged against the
 * one before it (`before`) and everything the model saw happen (`cut`: the time of the first thing
 * recorded with the message, its attachments or itself):
 * - it stands for exactly the messages the context stood for that came before the message;
 * - every item of the context that stood only for earlier messages stays as it was, in its order;
 *   every item that stood only for the message or later ones is gone; an item that stood for both
 *   is replaced, where it was, by items from earlier contexts that stand for its earlier part;
 * - those items are the coarsest that do (no item seen stands for more of that part);
 * - when nothing before the message was compacted since it was sent, it is exactly the context
 *   that preceded it; otherwise it still stands for the same messages.
 */
export function checkRewound(model: HistoryModel, sessionId: string, userId: string, cut: number, before: readonly Message[], after: readonly Message[]): void {
  const expected = new Set([...covered(before)].filter((id) => (model.times.get(id) ?? Infinity) < cut));
  const got = covered(after);
  assert.ok(sameSet(got, expected), `the rewound context stands for other messages than those before the message (cut ${cut}): ${describeSet(got, expected)} [times ${[...got].map((id) => `${id.slice(-4)}@${model.times.get(id)}`).join(" ")}]`);
  const beforeIds = new Set(before.map((m) => m.id));
  const kept = before.filter((item) => model.span(item).to < cut);
  const straddling = before.filter((item) => model.span(item).from < cut && model.span(item).to >= cut);
  const lineage = model.lineage(sessionId);
  const stayed = after.filter((m) => beforeIds.has(m.id));
  assert.deepEqual(stayed.map((m) => m.id), kept.map((m) => m.id), 'every item that stood only for earlier messages stays, in its order, and nothing later does');
  stayed.forEach((m, i) => assert.equal(contentForm(m), contentForm(kept[i]), `item ${m.id} changed`));
  for (const m of after.filter((item) => !beforeIds.has(item.id))) {
    const mine = transcriptIdsOf(m);
    const owner = straddling.find((s) => mine.every((id) => transcriptIdsOf(s).includes(id)));
    assert.ok(owner, `item ${m.id} (${m.kind}) came back, but no item that stood for both sides of the message stood for it`);
    checkCoarsest(lineage, m, new Set(transcriptIdsOf(owner).filter((id) => expected.has(id))));
  }
  checkInTimeOrder(after);
  const preceding = model.before.get(`${sessionId}\u0000${userId}`);
  if (preceding) {
    const now = new Set(before.map((m) => m.id));
    if (preceding.every((m) => now.has(m.id))) {
      assert.deepEqual(after.map((m) => m.id), preceding.map((m) => m.id), 'nothing before the message was compacted since: the context is exactly what preceded it');
    } else {
      const then = covered(preceding);
      assert.ok(sameSet(then, expected), `what preceded the message then and what stands for it now differ: ${describeSet(then, expected)}`);
    }
  }
  assert.deepEqual(validateHistory(after), [], 'every call keeps its result');
}

/**
 * An item brought back by a rewind was in a context of the session's history (`lineage`) before,
 * as it is, and no item of it stands for more of the part (`allowed`) it came back for.
 */
function checkCoarsest(lineage: ReadonlyMap<string, Message>, m: Message, allowed: ReadonlySet<string>): void {
  const seen = lineage.get(m.id);
  assert.ok(seen, `item ${m.id} (${m.kind}) was never in a working context`);
  assert.equal(contentForm(m), contentForm(seen), `item ${m.id} came back changed`);
  const mine = covered([m]);
  for (const other of lineage.values()) {
    if (!other.agentVisible || other.id === m.id) continue;
    const theirs = covered([other]);
    if (theirs.size <= mine.size || ![...mine].every((id) => theirs.has(id))) continue;
    assert.ok(![...theirs].every((id) => allowed.has(id)), `item ${m.id} (${m.kind}) came back although ${other.id} (${other.kind}) stands for more of what precedes the message`);
  }
}

/** The transcript messages of a working context come in the order they were written (a reply after the message it answers). */
export function checkInTimeOrder(working: readonly Message[]): void {
  const written = working.filter((m) => !m.meta?.replaces && (!m.meta?.synthetic || m.kind === 'aborted'));
  for (let i = 1; i < written.length; i++) {
    assert.ok(written[i - 1].createdAt < written[i].createdAt, `${written[i].kind} message ${written[i].id} comes after ${written[i - 1].kind} message ${written[i - 1].id}, which was written later`);
  }
}

/** The next request carries the working context as it is (nothing repaired), and thinking sent back is byte for byte what was sent first. */
export function checkRequestable(model: HistoryModel, session: ContextSession): void {
  const plan = session.planRequest();
  assert.equal(plan.repaired, 0, 'the next request needed no repair');
  checkInTimeOrder(session.messages);
  assert.deepEqual(validateHistory(plan.messages), []);
  assert.deepEqual(plan.messages.map(sentForm), session.messages.filter((m) => m.agentVisible).map(sentForm), 'the next request sends the working context');
  const thinking = plan.messages.filter((m) => hasSignedThinking(m) && model.thinking.has(m.id));
  if (!thinking.length) return;
  const body = new TextDecoder().decode(anthropicBodyBytes({ model: 'claude-sonnet-4-5', system: [], messages: plan.messages, tools: [], maxOutputTokens: 1_000 }));
  for (const m of thinking) assert.ok(body.includes(model.thinking.get(m.id)!), `the thinking of ${m.id} is not sent back byte for byte`);
}

/**
 * contextMarks over the working context says of each transcript message what the next request
 * carries of it (itself, a summary standing for it, or nothing); the chat, folded from the store
 * by the session state as a reopened chat is and then resumed with the working context, marks a
 * message set aside exactly when the next request carries nothing of it.
 */
export async function checkChatMarks(store: SessionStore, session: ContextSession): Promise<void> {
  const transcript = await store.loadTranscript(session.sessionId);
  const sent = session.planRequest().messages;
  const carried = covered(sent);
  const itself = new Set(sent.map((m) => m.id));
  const mark = contextMarks(session.messages);
  for (const m of transcript) {
    const expected = itself.has(m.id) ? 'in-context' : carried.has(m.id) ? 'summarized' : 'set-aside';
    assert.equal(mark(m.id), expected, `contextMarks says ${m.kind} message ${m.id} is ${mark(m.id)}; the next request has it ${expected}`);
  }
  const state = stateOf(transcript, { compactions: await store.listCompactionEvents(session.sessionId) });
  state.apply({ kind: 'resumed', context: session });
  for (const entry of state.chatEntries()) {
    if (entry.kind !== 'user' && entry.kind !== 'assistant') continue;
    assert.equal(Boolean(entry.setAside), !carried.has(entry.id), `the chat marks ${entry.kind} message ${entry.id} ${entry.setAside ? 'set aside' : 'in the context'}, the next request ${carried.has(entry.id) ? 'carries' : 'does not carry'} it`);
  }
}
