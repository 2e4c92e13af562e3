/**
 * A whole turn through the session's state, with plain objects: the stored writes, the agent's
 * events and a compaction go in, in the order a real turn makes them; each patch that comes out is
 * checked (what the chat's webview is sent, what the inspector must send again), and the chat as
 * the webview holds it after each patch is the state's whole chat.
 */
import { strict as assert } from 'assert';
import type { ContextBudget } from '../../../../src/core/accounting/budget';
import type { AgentEvent, SubagentProgress } from '../../../../src/core/agent/events';
import { assistantMessage, toolResultMessage, userMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../../../src/core/model/records';
import type { SessionInput, WorkingContext } from '../../../../src/host/sessionState/sessionInputs';
import type { SessionPatch } from '../../../../src/host/sessionState/sessionPatch';
import type { ChatEntry } from '../../../../src/protocol/chat';
import { agent, HeldChat, stateOf } from '../../../support/sessionStates';

const visible = (m: Message): Message => ({ ...m, userVisible: true, agentVisible: true });
const delegate = { id: 'call_d', name: 'delegate', arguments: JSON.stringify({ task: 'Find the CSV columns.', agent: 'explorer' }) };
const command = { id: 'call_c', name: 'run_command', arguments: JSON.stringify({ command: 'npm test' }) };

function usage(requestIndex: number, createdAt: number, input: number, sessionId = 's'): RequestUsageRecord {
  return { id: `${sessionId}-r${requestIndex}`, sessionId, requestIndex, createdAt, model: 'claude-sonnet-4-5', contextWindow: 200_000, maxOutputTokens: 8_000, estimatedInputTokens: input, reportedInputTokens: input, reportedOutputTokens: 40, components: { system: 1, skills: 0, tools: 0, messages: 1, toolResults: 0, summaries: 0 }, items: [] } as RequestUsageRecord;
}

/** The messages of the latest working context made. */
let workingMessages: Message[] = [];

/** A working context whose figure is what the test sets (a ContextSession is one). */
function workingContext() {
  workingMessages = [];
  const figures = { used: 10_000 };
  const budget = (): ContextBudget => ({ used: figures.used, effectiveWindow: 192_000, compactAtTokens: 150_000, blockAtTokens: 180_000, percent: figures.used / 1920, estimated: figures.used, shouldCompact: () => false, isBlocked: () => false } as unknown as ContextBudget);
  const context: WorkingContext = { measure: budget, planNextRequest: () => ({ messages: [], items: [], budget: budget(), repaired: 0 }) as never, calibration: { view: () => ({ factor: 1, error: 0, samples: 0 }) }, messages: workingMessages, fixed: {} };
  return { context, figures };
}

const progress = (p: Partial<SubagentProgress>): SessionInput => agent({ type: 'subagent', progress: { callId: 'call_d', sessionId: 'sub', agent: 'explorer', ...p } as SubagentProgress });
/** A write, which the working context holds as the real one does. */
const write = (appended: Message[]): SessionInput => {
  workingMessages.push(...appended);
  return { kind: 'change', change: { type: 'messages', appended, replaced: [] } };
};
const keys = (patch: SessionPatch) => patch.chat.entries?.upserts.map((e) => `${e.kind}:${e.id}`) ?? [];
const card = (entries: readonly ChatEntry[], id: string, callId: string) => (entries.find((e) => e.id === id) as Extract<ChatEntry, { kind: 'assistant' }>).toolCalls.find((c) => c.callId === callId)!;

describe('one turn through the session state: stream, thinking, a subagent, an approval, a compaction', () => {
  it('makes, for each input, the patch of what changed and nothing else', () => {
    const before = [visible(userMessage('Earlier question', { id: 'u1', createdAt: 10 })), visible(assistantMessage('Earlier answer.', [], { id: 'a1', createdAt: 20 }))];
    const state = stateOf(before, { usage: [usage(0, 15, 8_000)] }, { model: { id: 'claude-sonnet-4-5', label: 'Claude Sonnet 4.5' } });
    const { context, figures } = workingContext();
    workingMessages.push(...before);
    state.apply({ kind: 'resumed', context });
    const chat = new HeldChat(state);
    const step = (input: SessionInput): SessionPatch => {
      const patch = state.apply(input);
      assert.deepEqual(chat.entries(), state.chatEntries(), `after ${JSON.stringify(input).slice(0, 80)}: the webview holds the whole chat`);
      return patch;
    };

    // The user's message is stored: the earlier turn's figures are stored before it.
    let patch = step(write([visible(userMessage('Where are the CSV columns? Run the tests too.', { id: 'u2', createdAt: 100 }))]));
    assert.deepEqual(keys(patch), ['usage:usage-u1', 'user:u2']);
    assert.equal(patch.chat.entries?.keep, 2, 'the earlier messages are kept as they are');
    assert.ok(patch.inspector.context && patch.inspector.messages, 'the inspector plans the next request again');

    patch = step(agent({ type: 'turn_start', userMessageId: 'u2' }));
    assert.equal(patch.chat.header?.busy, true);
    assert.deepEqual(keys(patch), []);

    // Thinking, then the answer, stream as deltas: nothing else travels.
    for (const [event, streamed] of [
      [{ type: 'reasoning_delta', text: 'A subagent can look; ' }, { text: 'A subagent can look; ', thinking: true }],
      [{ type: 'reasoning_delta', text: 'the tests run here.' }, { text: 'the tests run here.', thinking: true }],
      [{ type: 'text_delta', text: 'Asking a subagent and running the tests.' }, { text: 'Asking a subagent and running the tests.', thinking: false }],
    ] as const) {
      patch = step(agent(event as AgentEvent));
      assert.deepEqual(patch.chat.streamed, { entryId: 'streaming', ...streamed });
      assert.deepEqual(keys(patch), []);
      assert.equal(patch.chat.header, undefined);
    }
    const streaming = chat.entries().at(-1)!;
    assert.ok(streaming.kind === 'assistant' && streaming.id === 'streaming' && streaming.thinking?.text === 'A subagent can look; the tests run here.' && !streaming.thinking.streaming);

    // The reply is stored: its entry replaces what streamed in the same patch.
    const reply = visible({ ...assistantMessage('Asking a subagent and running the tests.', [delegate, command], { id: 'a2', createdAt: 110 }), reasoning: [{ format: 'anthropic', text: 'A subagent can look; the tests run here.', signature: 's' }] });
    patch = step(write([reply]));
    assert.deepEqual(keys(patch), ['assistant:a2']);
    assert.equal(chat.entries().some((e) => e.id === 'streaming'), false);
    step(agent({ type: 'assistant_message', message: reply }));
    figures.used = 12_000;
    patch = step({ kind: 'change', change: { type: 'usage', record: usage(1, 105, 12_000) } });
    assert.equal(patch.chat.header?.meter?.used, 12_000, 'the meter follows the request');
    assert.ok(patch.inspector.requests, 'the inspector lists the request');
    assert.deepEqual(keys(patch), [], 'the running turn shows no figures yet');

    // The delegate card follows its subagent; only that card travels.
    patch = step(agent({ type: 'tool_call', call: delegate }));
    assert.deepEqual(keys(patch), ['assistant:a2']);
    assert.equal(card(chat.entries(), 'a2', 'call_d').subagent?.phase, 'waiting');
    for (const p of [{ kind: 'started', task: 'Find the CSV columns.' }, { kind: 'request', requestIndex: 0, usedTokens: 1, effectiveWindow: 2, percent: 1 }, { kind: 'usage', record: usage(0, 106, 4_000, 'sub') }, { kind: 'tool_call', toolName: 'read_file', toolCallId: 's1' }] as const) {
      assert.deepEqual(keys(step(progress(p))), ['assistant:a2']);
    }
    assert.deepEqual(card(chat.entries(), 'a2', 'call_d').subagent, { agent: 'explorer', task: 'Find the CSV columns.', phase: 'working', requests: 1, tokens: 4_040, read: 4_000, compactions: 0, lastTool: 'read_file' });

    // The command asks first: its card waits, then runs once answered.
    patch = step(agent({ type: 'tool_call', call: command }));
    assert.deepEqual(keys(patch), []);
    patch = step(agent({ type: 'approval_needed', request: { toolName: 'run_command', callId: 'call_c', title: 'Run `npm test`', kind: 'command' } }));
    assert.deepEqual(keys(patch), ['assistant:a2']);
    assert.equal(card(chat.entries(), 'a2', 'call_c').status, 'awaiting_approval');
    assert.equal(card(chat.entries(), 'a2', 'call_c').approval?.title, 'Run `npm test`');
    patch = step(agent({ type: 'approval_resolved', callId: 'call_c', decision: 'approved' }));
    assert.deepEqual(keys(patch), ['assistant:a2']);
    assert.equal(card(chat.entries(), 'a2', 'call_c').status, 'running');

    step(progress({ kind: 'ended', stopReason: 'end_turn', requests: 1, tokens: 4_040 }));
    patch = step(write([visible(toolResultMessage(delegate, 'src/export/columns.ts', { id: 't1', createdAt: 120 })), visible(toolResultMessage(command, '12 passing', { id: 't2', createdAt: 121 }))]));
    assert.deepEqual(keys(patch), ['assistant:a2']);
    assert.deepEqual([card(chat.entries(), 'a2', 'call_d').status, card(chat.entries(), 'a2', 'call_c').status], ['done', 'done']);
    assert.equal(card(chat.entries(), 'a2', 'call_d').subagent?.outcome, 'finished', 'the subagent says how it ended while the turn runs');

    // The context is compacted before the next request: a busy notice, the compaction in place, the notice gone.
    patch = step({ kind: 'compaction', event: { type: 'start', id: 'cmp', trigger: 'auto', tokensBefore: 160_000, messagesBefore: 40, dryRun: false } });
    assert.deepEqual(keys(patch), ['notice:compacting-cmp']);
    patch = step({ kind: 'compaction', event: { type: 'progress', id: 'cmp', step: 'summarizing 30 messages' } });
    assert.deepEqual(keys(patch), ['notice:compacting-cmp']);
    const record: CompactionEventRecord = { id: 'cmp', sessionId: 's', trigger: 'auto', status: 'complete', strategies: ['threshold-summarization'], tokensBefore: 160_000, tokensAfter: 40_000, messagesBefore: 40, messagesAfter: 8, startedAt: 130, durationMs: 5, removed: [] };
    figures.used = 40_000;
    patch = step({ kind: 'change', change: { type: 'compaction', record } });
    assert.deepEqual(keys(patch), ['compaction:cmp']);
    assert.equal(patch.chat.header?.meter?.used, 40_000);
    assert.ok(patch.inspector.compactions && patch.inspector.context);
    patch = step({ kind: 'compaction', event: { type: 'complete', id: 'cmp', record, dryRun: false } });
    assert.deepEqual(keys(patch), []);
    assert.equal(chat.entries().some((e) => e.id === 'compacting-cmp'), false);

    // The answer, its request, the end: the turn's figures close it, the card loses its live marks.
    step(write([visible(assistantMessage('The columns come from src/export/columns.ts; 12 tests pass.', [], { id: 'b2', createdAt: 140 }))]));
    step({ kind: 'change', change: { type: 'usage', record: usage(2, 141, 41_000) } });
    patch = step(agent({ type: 'turn_end', stopReason: 'end_turn' }));
    assert.equal(patch.chat.header?.busy, false);
    assert.deepEqual(keys(patch).sort(), ['assistant:a2', 'usage:usage-u2']);
    const figuresEntry = chat.entries().at(-1)!;
    assert.ok(figuresEntry.kind === 'usage' && figuresEntry.usage.requests === 3 && figuresEntry.usage.subagents?.requests === 1, 'its two requests and its subagent\'s');
    assert.equal(card(chat.entries(), 'a2', 'call_d').subagent, undefined, 'the stored card shows the report');
    assert.deepEqual(chat.entries().map((e) => `${e.kind}:${e.id}`), ['user:u1', 'assistant:a1', 'usage:usage-u1', 'user:u2', 'assistant:a2', 'compaction:cmp', 'assistant:b2', 'usage:usage-u2']);
    assert.deepEqual(chat.entries(), stateOf([...before, ...state.records.heldMessages.slice(2)], { usage: state.records.usageFigures, compactions: [record] }, { model: { id: 'claude-sonnet-4-5', label: 'Claude Sonnet 4.5' } }).chatEntries().map((e) => (e.kind === 'usage' && e.id === 'usage-u2' ? figuresEntry : e)), 'a session opened afresh shows the same (its subagents\' requests read apart)');
  });
});
