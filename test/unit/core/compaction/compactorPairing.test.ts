import { strict as assert } from 'assert';
import { ContextBudget } from '../../../../src/core/accounting/budget';
import { runCompaction } from '../../../../src/core/compaction/compactor';
import type { CompactionStrategy } from '../../../../src/core/compaction/types';
import { pairingViolations } from '../../../../src/core/history/normalize';
import type { Message } from '../../../../src/core/model/message';
import type { RemovedItem } from '../../../../src/core/model/records';
import { DEFAULT_SETTINGS } from '../../../../src/core/settings';

let n = 0;
const user = (content: string): Message => ({ id: `u${++n}`, role: 'user', kind: 'user', content, agentVisible: true, userVisible: true, createdAt: n });
const asst = (callId: string): Message => ({ id: `a${++n}`, role: 'assistant', kind: 'assistant', content: 'working', toolCalls: [{ id: callId, name: 'run_command', arguments: '{}' }], agentVisible: true, userVisible: true, createdAt: n });
const out = (callId: string): Message => ({ id: `o${++n}`, role: 'tool', kind: 'tool_result', content: `result of ${callId}`, toolCallId: callId, toolName: 'run_command', agentVisible: true, userVisible: true, createdAt: n });

/** A strategy that claims to have removed something but leaves the history as it was. */
const noOpStrategy: CompactionStrategy = {
  name: 'no-op',
  shouldRun: () => true,
  apply: async (messages) => ({ messages: [...messages], removed: [{ messageId: messages[0].id } as unknown as RemovedItem] }),
};

async function compact(history: Message[], open: string[]) {
  return runCompaction({
    id: 'c1',
    sessionId: 's1',
    history,
    openCallIds: new Set(open),
    budget: new ContextBudget({ contextWindow: 10_000, settings: DEFAULT_SETTINGS }),
    options: { trigger: 'manual' },
    settings: DEFAULT_SETTINGS,
    strategies: [noOpStrategy],
    summarizer: { name: 'none', summarize: async () => '' },
    countTokens: () => 5_000,
    offload: async () => undefined,
    newId: () => `m${++n}`,
    now: () => 0,
    emit: () => undefined,
  });
}

describe('compaction pairing check', () => {
  it('names the call each pairing violation concerns', () => {
    const v = pairingViolations([user('go'), asst('c1'), out('c2')]);
    assert.deepEqual(v.map((x) => [x.kind, x.callId]), [['unexpected', 'c2'], ['unanswered', 'c1']]);
  });

  it('still refuses a broken pair whose call id merely contains the id of the open call', async () => {
    // A provider-chosen id is arbitrary text; this one quotes the open call's id inside it.
    const tricky = 'x" "compact_1';
    const history = [user('go'), asst(tricky), out(tricky), asst(tricky), asst('compact_1')];
    const outcome = await compact(history, ['compact_1']);
    assert.equal(outcome.event.status, 'error');
    assert.match(outcome.event.error ?? '', /has no output/);
    assert.equal(outcome.changed, false);
  });

  it('lets the open call (compact_context itself) stay unanswered', async () => {
    const history = [user('go'), asst('c1'), out('c1'), asst('compact_1')];
    const outcome = await compact(history, ['compact_1']);
    assert.equal(outcome.event.status, 'complete');
  });
});
