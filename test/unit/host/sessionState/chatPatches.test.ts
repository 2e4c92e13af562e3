import { strict as assert } from 'assert';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../../../src/core/model/records';
import { foldWork } from '../../../../src/host/chat/chatEntries';
import type { SessionState } from '../../../../src/host/sessionState/sessionState';
import { applyChatEntriesPatch, type HeldChatEntries } from '../../../../src/protocol/chatPatch';
import type { ChatEntry } from '../../../../src/protocol/chat';
import { agent, HeldChat, stateOf } from '../../../support/sessionStates';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });

function usage(requestIndex: number, createdAt: number): RequestUsageRecord {
  return { id: `r${requestIndex}`, sessionId: 's', requestIndex, createdAt, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: 500 + requestIndex, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, items: [] } as RequestUsageRecord;
}

/** One turn as a session writes it: a user message, calls, results, usage per request. */
function turnOf(turn: number): { messages: Message[]; usage: RequestUsageRecord[] } {
  const t = turn * 100;
  const call = { id: `c${turn}`, name: 'run_command', arguments: `{"command":"npm test -- ${turn}"}` };
  return {
    messages: [
      visible(userMessage(`request ${turn}`, { id: `u${turn}`, createdAt: t + 1 })),
      visible(assistantMessage(`Running the tests (${turn}).`, [call], { id: `a${turn}`, createdAt: t + 2 })),
      visible(toolResultMessage(call, `ok ${turn}`, { id: `t${turn}`, createdAt: t + 3 })),
      visible(assistantMessage(`Done with **${turn}**.`, [], { id: `b${turn}`, createdAt: t + 4 })),
    ],
    usage: [usage(turn * 2, t + 2), usage(turn * 2 + 1, t + 4)],
  };
}

/** The writes of a turn, in the order a session makes them: messages, then each request's usage. */
function write(state: SessionState, turn: { messages: Message[]; usage: RequestUsageRecord[] }): void {
  state.apply({ kind: 'change', change: { type: 'messages', appended: turn.messages, replaced: [] } });
  for (const record of turn.usage) state.apply({ kind: 'change', change: { type: 'usage', record } });
}

const keysOf = (entries: readonly ChatEntry[]) => entries.map((e) => `${e.kind}:${e.id}`);

describe('the chat gets what each write changed', () => {
  it('after every turn, the webview holds exactly the entries a state opened afresh gives, and only new or changed entries travel', () => {
    const state = stateOf([]);
    const chat = new HeldChat(state);
    const transcript: Message[] = [];
    const usageList: RequestUsageRecord[] = [];
    for (let turn = 0; turn < 30; turn++) {
      const writes = turnOf(turn);
      transcript.push(...writes.messages);
      usageList.push(...writes.usage);
      const before = chat.patches.length;
      write(state, writes);
      assert.deepEqual(chat.entries(), stateOf(transcript, { usage: usageList }).chatEntries(), `turn ${turn}: what the webview holds equals a fresh fold`);
      if (turn > 0) {
        const sent = chat.patches.slice(before).flatMap((p) => p.chat.entries?.upserts ?? []);
        // New: the previous turn's figures (now stored), the user message, two assistant messages, the card's result, and this turn's figures (twice).
        assert.deepEqual([...new Set(keysOf(sent))], [`usage:usage-u${turn - 1}`, `user:u${turn}`, `assistant:a${turn}`, `assistant:b${turn}`, `usage:usage-u${turn}`]);
        assert.equal(chat.patches[before].chat.entries?.keep, turn * 4 - 1, 'everything before the new turn is kept as it is');
      }
    }
  });

  it('a tool result arriving later re-sends only the card it completes', () => {
    const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' };
    const state = stateOf([visible(userMessage('read a.ts', { id: 'u1', createdAt: 1 })), visible(assistantMessage('', [call], { id: 'a1', createdAt: 2 }))]);
    const patch = state.apply({ kind: 'change', change: { type: 'messages', appended: [visible(toolResultMessage(call, 'export const a = 1;', { id: 't1', createdAt: 3 }))], replaced: [] } });
    assert.deepEqual(patch.chat.entries?.upserts.map((e) => e.id), ['a1']);
    const card = (patch.chat.entries!.upserts[0] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0];
    assert.equal(card.status, 'done');
    assert.equal(card.resultPreview, 'export const a = 1;');
  });

  it('a card waits for approval while asked, and goes back to its stored look once answered', () => {
    const call = { id: 'c1', name: 'run_command', arguments: '{"command":"rm -rf build"}' };
    const state = stateOf([visible(userMessage('clean', { id: 'u1', createdAt: 1 })), visible(assistantMessage('', [call], { id: 'a1', createdAt: 2 }))]);
    const chat = new HeldChat(state);
    state.apply(agent({ type: 'turn_start', userMessageId: 'u1' }));
    const asked = state.apply(agent({ type: 'approval_needed', request: { toolName: 'run_command', callId: 'c1', title: 'Run rm -rf build?', kind: 'command' } }));
    assert.deepEqual(asked.chat.entries?.upserts.map((e) => e.id), ['a1'], 'only the card travels');
    const card = (chat.entries()[1] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0];
    assert.equal(card.status, 'awaiting_approval');
    assert.equal(card.approval?.title, 'Run rm -rf build?');
    assert.equal((state.entries.entry('assistant:a1') as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0].status, 'running', 'the stored entry is not changed');
    assert.equal(state.apply(agent({ type: 'request_start', requestIndex: 1, usedTokens: 1, effectiveWindow: 2, percent: 1 })).chat.entries, undefined, 'nothing travels while nothing changed');
    const answered = state.apply(agent({ type: 'approval_resolved', callId: 'c1', decision: 'approved' }));
    assert.deepEqual(answered.chat.entries?.upserts.map((e) => e.id), ['a1']);
    assert.equal((chat.entries()[1] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0].status, 'running');
  });

  it('a compaction that started before messages already shown goes in at its time, the entries after it sent again, as a fresh fold places it', () => {
    const transcript: Message[] = [];
    const usageList: RequestUsageRecord[] = [];
    for (let turn = 0; turn < 3; turn++) {
      transcript.push(...turnOf(turn).messages);
      usageList.push(...turnOf(turn).usage);
    }
    const state = stateOf(transcript, { usage: usageList });
    const chat = new HeldChat(state);
    const compaction: CompactionEventRecord = { id: 'cmp', sessionId: 's', trigger: 'manual', status: 'complete', strategies: [], tokensBefore: 900, tokensAfter: 300, messagesBefore: 12, messagesAfter: 4, startedAt: 150, durationMs: 1, removed: [] };
    const made = foldWork.entriesMade;
    const patch = state.apply({ kind: 'change', change: { type: 'compaction', record: compaction } });
    assert.equal(foldWork.entriesMade, made, 'no message entry is made again');
    assert.deepEqual(chat.entries(), stateOf(transcript, { usage: usageList, compactions: [compaction] }).chatEntries());
    assert.deepEqual(chat.entries().map((e) => e.id).slice(6, 10), ['b1', 'cmp', 'usage-u1', 'u2'], "the compaction goes before the first message after it started, the turn's figures after it");
    assert.equal(patch.chat.entries?.keep, 7, 'the entries before it are kept');
    assert.deepEqual(patch.chat.entries?.upserts.map((e) => e.id), ['cmp']);
  });

  it('a message written again (a pin) changes its own entry, even among 50,000 shown: the rest is neither folded again nor sent', () => {
    const transcript: Message[] = [];
    for (let turn = 0; turn < 12_500; turn++) transcript.push(...turnOf(turn).messages);
    const state = stateOf(transcript);
    const chat = new HeldChat(state);
    const made = foldWork.entriesMade;
    const pinned = { ...transcript[20_001], pinned: true, content: 'Running the tests (5000), pinned.' };
    const patch = state.apply({ kind: 'change', change: { type: 'messages', appended: [], replaced: [pinned] } });
    assert.ok(foldWork.entriesMade - made <= 1, `${foldWork.entriesMade - made} entries made for one message written again`);
    assert.deepEqual(patch.chat.entries?.upserts.map((e) => e.id), [pinned.id]);
    assert.equal(patch.chat.entries?.keep, chat.entries().length, 'nothing moves');
    const entry = chat.entries().find((e) => e.id === pinned.id);
    assert.ok(entry?.kind === 'assistant' && entry.text === 'Running the tests (5000), pinned.' && entry.toolCalls[0].status === 'done', 'its card keeps its result');
    // A result written again keeps its card where it is, too.
    const result = { ...transcript[20_002], pinned: true };
    assert.deepEqual(state.apply({ kind: 'change', change: { type: 'messages', appended: [], replaced: [result] } }).chat.entries?.upserts.map((e) => e.id), [pinned.id]);
  });

  it('a change that does not fit what the webview holds is reported, not drawn half-way', () => {
    const held: HeldChatEntries = { order: [], byKey: new Map() };
    const { missing } = applyChatEntriesPatch(held, { keep: 0, tail: ['user:u1', 'assistant:a1'], upserts: [{ kind: 'user', id: 'u1', text: 'hi' }] });
    assert.deepEqual(missing, ['assistant:a1']);
  });
});
