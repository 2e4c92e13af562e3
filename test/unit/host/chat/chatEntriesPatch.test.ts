import { strict as assert } from 'assert';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { TurnUsageRecord } from '../../../../src/core/model/records';
import { SentChatEntries } from '../../../../src/host/chat/chatEntriesPatch';
import { buildChatEntries, ChatEntryMemo, type ChatExtras } from '../../../../src/host/chat/chatState';
import { applyChatEntriesPatch, type HeldChatEntries } from '../../../../src/protocol/chatPatch';
import type { ChatEntry } from '../../../../src/protocol/chat';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });

function usage(requestIndex: number, createdAt: number): TurnUsageRecord {
  return { id: `r${requestIndex}`, sessionId: 's', requestIndex, createdAt, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: 500 + requestIndex, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, items: [] } as TurnUsageRecord;
}

/** A chat that grows the way a session does: a user message, calls, results, usage per request. */
function grow(transcript: Message[], usageList: TurnUsageRecord[], turn: number): void {
  const t = turn * 100;
  transcript.push(visible(userMessage(`request ${turn}`, { id: `u${turn}`, createdAt: t + 1 })));
  const call = { id: `c${turn}`, name: 'run_command', arguments: `{"command":"npm test -- ${turn}"}` };
  transcript.push(visible(assistantMessage(`Running the tests (${turn}).`, [call], { id: `a${turn}`, createdAt: t + 2 })));
  usageList.push(usage(turn * 2, t + 2));
  transcript.push(visible(toolResultMessage(call, `ok ${turn}`, { id: `t${turn}`, createdAt: t + 3 })));
  transcript.push(visible(assistantMessage(`Done with **${turn}**.`, [], { id: `b${turn}`, createdAt: t + 4 })));
  usageList.push(usage(turn * 2 + 1, t + 4));
}

describe('chat refresh sends only what changed', () => {
  it('after every turn, the webview holds exactly the entries a full rebuild gives, and only new or changed entries travel', () => {
    const transcript: Message[] = [];
    const usageList: TurnUsageRecord[] = [];
    const memo = new ChatEntryMemo();
    const sent = new SentChatEntries();
    const held: HeldChatEntries = { order: [], byKey: new Map() };
    for (let turn = 0; turn < 30; turn++) {
      grow(transcript, usageList, turn);
      const extras: ChatExtras = { usage: usageList };
      const entries = buildChatEntries(transcript, [], extras, memo);
      const patch = sent.change(entries);
      const { entries: shown, missing } = applyChatEntriesPatch(held, patch);
      assert.deepEqual(missing, []);
      assert.deepEqual(shown, buildChatEntries(transcript, [], extras), `turn ${turn}: the held list equals a full rebuild`);
      if (turn > 0) {
        // New: the user message, two assistant messages, and this turn's figures; the figures
        // of the previous turn are unchanged and stay put.
        assert.deepEqual(patch.upserts.map((e) => `${e.kind}:${e.id}`), [`user:u${turn}`, `assistant:a${turn}`, `assistant:b${turn}`, `usage:usage-u${turn}`]);
        assert.equal(patch.keep, turn * 4, 'everything before the new turn is kept as it is');
      }
    }
    assert.equal(held.order.length, 120);
  });

  it('a tool result arriving later re-sends only the card it completes', () => {
    const call = { id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' };
    const transcript = [visible(userMessage('read a.ts', { id: 'u1', createdAt: 1 })), visible(assistantMessage('', [call], { id: 'a1', createdAt: 2 }))];
    const memo = new ChatEntryMemo();
    const sent = new SentChatEntries();
    sent.change(buildChatEntries(transcript, [], {}, memo));
    transcript.push(visible(toolResultMessage(call, 'export const a = 1;', { id: 't1', createdAt: 3 })));
    const patch = sent.change(buildChatEntries(transcript, [], {}, memo));
    assert.deepEqual(patch.upserts.map((e) => e.id), ['a1']);
    const card = (patch.upserts[0] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0];
    assert.equal(card.status, 'done');
    assert.equal(card.resultPreview, 'export const a = 1;');
  });

  it('an approval shown on a card never changes the stored entry it was copied from', () => {
    const call = { id: 'c1', name: 'run_command', arguments: '{"command":"rm -rf build"}' };
    const transcript = [visible(userMessage('clean', { id: 'u1', createdAt: 1 })), visible(assistantMessage('', [call], { id: 'a1', createdAt: 2 }))];
    const memo = new ChatEntryMemo();
    const live = { events: [{ type: 'approval_needed', request: { callId: 'c1', title: 'Run rm -rf build?', kind: 'command' } }], streamingText: '' } as unknown as ChatExtras['live'];
    const waiting = buildChatEntries(transcript, [], { live }, memo);
    const after = buildChatEntries(transcript, [], {}, memo);
    assert.equal((waiting[1] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0].status, 'awaiting_approval');
    assert.equal((after[1] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0].status, 'running');
    assert.equal((after[1] as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0].approval, undefined);
  });

  it('a change that does not fit what the webview holds is reported, not drawn half-way', () => {
    const held: HeldChatEntries = { order: [], byKey: new Map() };
    const { missing } = applyChatEntriesPatch(held, { keep: 0, tail: ['user:u1', 'assistant:a1'], upserts: [{ kind: 'user', id: 'u1', text: 'hi' }] });
    assert.deepEqual(missing, ['assistant:a1']);
  });
});
