import { strict as assert } from 'assert';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../../../src/core/model/records';
import { ChatEntries } from '../../../../src/host/chat/chatEntries';
import { ChatEntriesSent } from '../../../../src/host/chat/chatEntriesPatch';
import { buildChatEntries, type ChatExtras } from '../../../../src/host/chat/chatState';
import { applyChatEntriesPatch, type HeldChatEntries } from '../../../../src/protocol/chatPatch';
import type { ChatEntry } from '../../../../src/protocol/chat';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });

function usage(requestIndex: number, createdAt: number): RequestUsageRecord {
  return { id: `r${requestIndex}`, sessionId: 's', requestIndex, createdAt, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: 500 + requestIndex, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, items: [] } as RequestUsageRecord;
}

/** A chat that grows the way a session does: a user message, calls, results, usage per request. */
function grow(transcript: Message[], usageList: RequestUsageRecord[], turn: number): void {
  const t = turn * 100;
  transcript.push(visible(userMessage(`request ${turn}`, { id: `u${turn}`, createdAt: t + 1 })));
  const call = { id: `c${turn}`, name: 'run_command', arguments: `{"command":"npm test -- ${turn}"}` };
  transcript.push(visible(assistantMessage(`Running the tests (${turn}).`, [call], { id: `a${turn}`, createdAt: t + 2 })));
  usageList.push(usage(turn * 2, t + 2));
  transcript.push(visible(toolResultMessage(call, `ok ${turn}`, { id: `t${turn}`, createdAt: t + 3 })));
  transcript.push(visible(assistantMessage(`Done with **${turn}**.`, [], { id: `b${turn}`, createdAt: t + 4 })));
  usageList.push(usage(turn * 2 + 1, t + 4));
}

/** The host's side: the fold of the stored entries and what the webview was sent; the webview's side: what it holds. */
function chatPair() {
  const stored = new ChatEntries();
  const sent = new ChatEntriesSent();
  const held: HeldChatEntries = { order: [], byKey: new Map() };
  const post = (extras: ChatExtras = {}) => {
    const patch = sent.change(stored, extras);
    const { entries, missing } = applyChatEntriesPatch(held, patch);
    assert.deepEqual(missing, []);
    return { patch, entries };
  };
  return { stored, post };
}

describe('chat refresh sends only what changed', () => {
  it('after every turn, the webview holds exactly the entries a full rebuild gives, and only new or changed entries travel', () => {
    const transcript: Message[] = [];
    const usageList: RequestUsageRecord[] = [];
    const { stored, post } = chatPair();
    for (let turn = 0; turn < 30; turn++) {
      const before = transcript.length;
      const usageBefore = usageList.length;
      grow(transcript, usageList, turn);
      // The writes arrive as the session makes them: messages, then each request's usage.
      stored.append(transcript.slice(before));
      for (const record of usageList.slice(usageBefore)) assert.ok(stored.addUsage(record));
      const extras: ChatExtras = { usage: usageList };
      const { patch, entries } = post(extras);
      assert.deepEqual(entries, buildChatEntries(transcript, [], extras), `turn ${turn}: the held list equals a full rebuild`);
      if (turn > 0) {
        // New: the previous turn's figures (now stored), the user message, two assistant messages,
        // and this turn's figures at the end.
        assert.deepEqual(patch.upserts.map((e) => `${e.kind}:${e.id}`), [`usage:usage-u${turn - 1}`, `user:u${turn}`, `assistant:a${turn}`, `assistant:b${turn}`, `usage:usage-u${turn}`]);
        assert.equal(patch.keep, turn * 4 - 1, 'everything before the new turn is kept as it is');
      }
    }
  });

  it('a tool result arriving later re-sends only the card it completes', () => {
    const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' };
    const { stored, post } = chatPair();
    stored.append([visible(userMessage('read a.ts', { id: 'u1', createdAt: 1 })), visible(assistantMessage('', [call], { id: 'a1', createdAt: 2 }))]);
    post();
    stored.append([visible(toolResultMessage(call, 'export const a = 1;', { id: 't1', createdAt: 3 }))]);
    const { patch } = post();
    assert.deepEqual(patch.upserts.map((e) => e.id), ['a1']);
    const card = (patch.upserts[0] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0];
    assert.equal(card.status, 'done');
    assert.equal(card.resultPreview, 'export const a = 1;');
  });

  it('a card waits for approval while asked, and goes back to its stored entry once answered', () => {
    const call = { id: 'c1', name: 'run_command', arguments: '{"command":"rm -rf build"}' };
    const { stored, post } = chatPair();
    stored.append([visible(userMessage('clean', { id: 'u1', createdAt: 1 })), visible(assistantMessage('', [call], { id: 'a1', createdAt: 2 }))]);
    post();
    const live = { events: [], streamingText: '', streamingThinking: '', notices: [], approvals: new Map([['c1', { title: 'Run rm -rf build?', kind: 'command' as const }]]) };
    const waiting = post({ live });
    const card = (waiting.entries[1] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0];
    assert.equal(card.status, 'awaiting_approval');
    assert.equal(card.approval?.title, 'Run rm -rf build?');
    assert.equal((stored.entry('assistant:a1') as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0].status, 'running', 'the stored entry is not changed');
    assert.deepEqual(post({ live }).patch.upserts, [], 'nothing travels while nothing changed');
    const answered = post({ live: { ...live, approvals: new Map() } });
    assert.deepEqual(answered.patch.upserts.map((e) => e.id), ['a1']);
    assert.equal((answered.entries[1] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0].status, 'running');
  });

  it('a compaction that started before messages already shown is folded again and matches a full rebuild', () => {
    const transcript: Message[] = [];
    const usageList: RequestUsageRecord[] = [];
    const { stored, post } = chatPair();
    for (let turn = 0; turn < 3; turn++) grow(transcript, usageList, turn);
    stored.reset(transcript, [], usageList);
    post();
    const compaction: CompactionEventRecord = { id: 'cmp', sessionId: 's', trigger: 'manual', status: 'complete', strategies: [], tokensBefore: 900, tokensAfter: 300, messagesBefore: 12, messagesAfter: 4, startedAt: 150, durationMs: 1, removed: [] };
    assert.equal(stored.addCompaction(compaction), false, 'it started before messages already shown');
    stored.reset(transcript, [compaction], usageList);
    const { entries } = post({ usage: usageList });
    assert.deepEqual(entries, buildChatEntries(transcript, [compaction], { usage: usageList }));
    assert.deepEqual(entries.map((e) => e.id).slice(6, 10), ['b1', 'cmp', 'usage-u1', 'u2'], 'the compaction goes before the first message after it started, the turn\'s figures after it');
  });

  it('a change that does not fit what the webview holds is reported, not drawn half-way', () => {
    const held: HeldChatEntries = { order: [], byKey: new Map() };
    const { missing } = applyChatEntriesPatch(held, { keep: 0, tail: ['user:u1', 'assistant:a1'], upserts: [{ kind: 'user', id: 'u1', text: 'hi' }] });
    assert.deepEqual(missing, ['assistant:a1']);
  });
});
