/** What the chat shows besides the stored messages: a waiting first message, turn figures, compaction progress, Retry. */
import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../../../src/core/model/records';
import { HeldChat, stateOf } from '../../../support/sessionStates';

const msg = (id: string, role: 'user' | 'assistant', createdAt: number, content = id): Message => ({ id, role, kind: role, content, agentVisible: true, userVisible: true, createdAt });
const usage = (createdAt: number, input: number): RequestUsageRecord => ({
  id: `r${createdAt}`, sessionId: 's', requestIndex: createdAt, createdAt, model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 16_000,
  components: {} as RequestUsageRecord['components'], estimatedInputTokens: input, reportedInputTokens: input, reportedOutputTokens: 10, items: [],
});

describe('chat entries: figures, notices and actions', () => {
  it('closes each turn with its own figures, right before the next user message', () => {
    const entries = stateOf([msg('u1', 'user', 10), msg('a1', 'assistant', 20), msg('u2', 'user', 30), msg('a2', 'assistant', 40)], { usage: [usage(15, 1_000), usage(35, 2_000), usage(36, 2_500)] }).chatEntries();
    assert.deepStrictEqual(entries.map((e) => e.kind === 'usage' ? `usage:${e.usage.requests}:${e.usage.lastRequestTokens}` : e.id), ['u1', 'a1', 'usage:1:1000', 'u2', 'a2', 'usage:2:2500']);
  });

  it('keeps a message typed with no model as a pending user entry with a Choose a model notice, and no banner over it', () => {
    const state = stateOf([], {}, { unavailable: 'No model is configured.' });
    const chat = new HeldChat(state);
    assert.equal(chat.header.banner, 'No model is configured.');
    state.apply({ kind: 'unsent', pending: 'Explain the loader.', waiting: [] });
    assert.deepStrictEqual(chat.entries(), [
      { kind: 'user', id: 'pending', text: 'Explain the loader.', pending: true },
      { kind: 'notice', id: 'pending-model', level: 'warning', text: 'No model is configured, so this message has not been sent. Choose a model and it is sent right away.', action: 'selectModel' },
    ]);
    assert.equal(chat.header.banner, undefined);
    state.apply({ kind: 'unsent', waiting: [] });
    assert.deepStrictEqual(chat.entries(), [], 'discarded');
  });

  it('shows messages sent while the session resumes as not sent yet', () => {
    const state = stateOf([msg('u1', 'user', 1)]);
    const chat = new HeldChat(state);
    state.apply({ kind: 'unsent', waiting: ['one', 'two'] });
    assert.deepStrictEqual(chat.entries().map((e) => e.kind === 'user' && [e.id, e.pending === true]), [['u1', false], ['waiting-0', true], ['waiting-1', true]]);
  });

  it('does not warn about an assumed context window when no model is configured', () => {
    const budget = { percent: 0, used: 0, effectiveWindow: 112_000, compactAtTokens: 100_000, windowIsFallback: true, warning: 'Unknown context window: assumed 128,000 tokens.' };
    const context = { measure: () => budget, planRequest: () => ({ messages: [], items: [], budget, repaired: 0 }), calibration: { view: () => ({ factor: 1, error: 0, samples: 0 }) }, messages: [], fixed: {} } as never;
    const without = stateOf([]);
    without.apply({ kind: 'resumed', context });
    assert.strictEqual(without.header().meter?.warning, undefined);
    const withModel = stateOf([], {}, { model: { id: 'm', label: 'M' } });
    withModel.apply({ kind: 'resumed', context });
    assert.ok(withModel.header().meter?.warning);
  });

  it('says when /compact had nothing to compact, and leaves out automatic checks that found nothing', () => {
    const skipped = (trigger: CompactionEventRecord['trigger']): CompactionEventRecord => ({ id: `c-${trigger}`, sessionId: 's', trigger, status: 'skipped', strategies: [], tokensBefore: 1_200, tokensAfter: 1_200, messagesBefore: 2, messagesAfter: 2, startedAt: 5, durationMs: 1, removed: [] });
    const entries = stateOf([msg('u1', 'user', 1)], { compactions: [skipped('manual'), skipped('auto')] }).chatEntries();
    assert.deepStrictEqual(entries.map((e) => e.kind === 'notice' ? e.text : e.id), ['u1', 'Nothing to compact: the context (1,200 tokens) has nothing the strategies can remove yet.']);
  });

  it('shows a running compaction as a busy notice that follows start, progress and complete; previews are not shown', () => {
    const state = stateOf([]);
    const chat = new HeldChat(state);
    state.apply({ kind: 'compaction', event: { type: 'start', id: 'c1', trigger: 'tool', tokensBefore: 90_000, messagesBefore: 40, dryRun: false } });
    state.apply({ kind: 'compaction', event: { type: 'progress', id: 'c1', strategy: 'threshold-summarization', step: 'summarizing 38 messages' } });
    assert.deepStrictEqual(chat.entries(), [{ kind: 'notice', id: 'compacting-c1', level: 'info', busy: true, text: 'Compacting the context (90,000 tokens) because the model asked for it — summarizing 38 messages…' }]);
    state.apply({ kind: 'compaction', event: { type: 'start', id: 'p', trigger: 'manual', tokensBefore: 1, messagesBefore: 1, dryRun: true } });
    assert.equal(chat.entries().length, 1, 'a preview is not shown');
    state.apply({ kind: 'compaction', event: { type: 'complete', id: 'c1', record: {} as CompactionEventRecord, dryRun: false } });
    assert.deepStrictEqual(chat.entries(), []);
  });
});
