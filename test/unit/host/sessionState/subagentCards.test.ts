import { strict as assert } from 'assert';
import type { AgentEvent, SubagentProgress } from '../../../../src/core/agent/events';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { RequestUsageRecord } from '../../../../src/core/model/records';
import type { ChatEntry, ChatToolCallView } from '../../../../src/protocol/chat';
import { HeldChat, stateOf } from '../../../support/sessionStates';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });
const delegateCall = { id: 'call_d', name: 'delegate', arguments: JSON.stringify({ task: 'Find where the CSV export reads its columns.\nReport the files.', agent: 'explorer' }) };

function usage(input: number, output: number): RequestUsageRecord {
  return { id: 'r', sessionId: 'sub', requestIndex: 0, createdAt: 1, model: 'm', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: input, reportedInputTokens: input, reportedOutputTokens: output, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, items: [] } as RequestUsageRecord;
}

function progress(p: Record<string, unknown>): AgentEvent {
  return { type: 'subagent', progress: { callId: 'call_d', sessionId: 'sub', agent: 'explorer', ...p } as SubagentProgress };
}

/** The chat as the webview holds it, fed by the session's state and the patches it makes. */
function chat() {
  const state = stateOf([visible(userMessage('Where are the CSV columns?', { id: 'u1', createdAt: 1 }))]);
  const held = new HeldChat(state);
  const tracker = { apply: (event: AgentEvent) => void state.apply({ kind: 'agent', event }), get live() { return state.live; } };
  const stored = { append: (appended: Message[]) => void state.apply({ kind: 'change', change: { type: 'messages', appended, replaced: [] } }) };
  tracker.apply({ type: 'turn_start', userMessageId: 'u1' });
  stored.append([visible(assistantMessage('Asking a subagent.', [delegateCall], { id: 'a1', createdAt: 2 }))]);
  tracker.apply({ type: 'tool_call', call: delegateCall });
  const card = (): ChatToolCallView => {
    assert.deepEqual(held.entries(), state.chatEntries(), 'the webview holds what a whole state would carry');
    return (held.entries().find((e) => e.id === 'a1') as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls[0];
  };
  return { stored, tracker, card };
}

describe('a subagent in the chat: the delegate card follows its progress', () => {
  it('waits for a slot, then counts requests, tokens, compactions and the last tool, then says how it ended', () => {
    const { tracker, card } = chat();
    assert.deepEqual(card().subagent, { agent: 'explorer', task: 'Find where the CSV export reads its columns.\nReport the files.', phase: 'waiting', requests: 0, tokens: 0, read: 0, compactions: 0 });

    tracker.apply(progress({ kind: 'started', task: 'Find where the CSV export reads its columns.\nReport the files.' }));
    for (let i = 0; i < 3; i++) {
      tracker.apply(progress({ kind: 'request', requestIndex: i, usedTokens: 1000, effectiveWindow: 100_000, percent: 1 }));
      tracker.apply(progress({ kind: 'usage', record: usage(4_000, 133) }));
      tracker.apply(progress({ kind: 'tool_call', toolName: i === 2 ? 'read_file' : 'grep', toolCallId: `s${i}` }));
    }
    tracker.apply(progress({ kind: 'compaction', event: { type: 'start', id: 'k', trigger: 'auto', tokensBefore: 1, messagesBefore: 1, dryRun: false } }));
    tracker.apply(progress({ kind: 'compaction', event: { type: 'complete', id: 'k', dryRun: false, record: {} } }));
    const working = card();
    assert.equal(working.status, 'running');
    assert.deepEqual(working.subagent, { agent: 'explorer', task: 'Find where the CSV export reads its columns.\nReport the files.', phase: 'working', requests: 3, tokens: 12_399, read: 12_000, compactions: 1, lastTool: 'read_file' });

    tracker.apply(progress({ kind: 'ended', stopReason: 'request_cap', requests: 3, tokens: 12_400 }));
    const ended = card().subagent;
    assert.equal(ended?.phase, 'ended');
    assert.equal(ended?.outcome, 'stopped at its request cap');
    assert.equal(ended?.tokens, 12_400, 'the subagent\'s own total wins once it ends');
  });

  it('shows a failed subagent\'s error, and after the turn the stored card keeps the report without the live record', () => {
    const { stored, tracker, card } = chat();
    tracker.apply(progress({ kind: 'started', task: 'Find the columns' }));
    tracker.apply(progress({ kind: 'ended', stopReason: 'error', requests: 1, tokens: 900, error: 'The provider refused the key' }));
    assert.equal(card().subagent?.outcome, 'The provider refused the key');

    stored.append([visible(toolResultMessage(delegateCall, 'The columns come from src/export/columns.ts.', { id: 't1', createdAt: 3 }))]);
    tracker.apply({ type: 'turn_end', stopReason: 'end_turn' });
    const after = card();
    assert.equal(after.subagent, undefined);
    assert.equal(after.status, 'done');
    assert.equal(after.resultPreview, 'The columns come from src/export/columns.ts.');
  });

  it('ignores progress of a nested subagent whose delegate call is not on this chat\'s cards', () => {
    const { tracker, card } = chat();
    tracker.apply({ type: 'subagent', progress: { callId: 'sub:call_x', sessionId: 'grandchild', kind: 'started', task: 'deeper' } });
    assert.equal(card().subagent?.phase, 'waiting');
    assert.equal(tracker.live?.subagents.size, 1);
  });

  it("shows a subagent's approval on its delegate card, naming the subagent, answered by the subagent's own id", () => {
    const { tracker, card } = chat();
    tracker.apply(progress({ kind: 'started', task: 'Find the columns' }));
    const answerId = 'sub/call_edit';
    tracker.apply({
      type: 'approval_needed',
      request: { callId: answerId, toolName: 'edit_file', kind: 'edit', title: 'explorer subagent: Edit `src/export/columns.ts`', detail: '- a\n+ b', subagent: { sessionId: 'sub', name: 'explorer', parentCallId: 'call_d' } },
    } as AgentEvent);
    const asking = card();
    assert.equal(asking.status, 'awaiting_approval', 'the user sees the question where the subagent works');
    assert.equal(asking.approval?.title, 'explorer subagent: Edit `src/export/columns.ts`');
    assert.equal(asking.approval?.subagent, 'explorer');
    assert.equal(asking.approval?.answerId, answerId, "the card's buttons answer the subagent's request, not the delegate call");
    assert.equal(asking.subagent?.phase, 'working', 'with its progress beside it');

    tracker.apply({ type: 'approval_resolved', callId: answerId, decision: 'approved' });
    assert.equal(card().status, 'running');
    assert.equal(card().approval, undefined);
  });
});
