import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { RequestItem, RequestUsageRecord } from '../../../../src/core/model/records';
import { policyNamed } from '../../../../src/core/replay/baselines';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { readLastRequest } from '../../../../src/core/context/lastRequestUsage';
import { DEFAULT_SETTINGS } from '../../../../src/core/settings';
import { call, logOutput, msg, prng } from '../../../support/syntheticSession';
import { segmentsReadDuring } from '../../node/store/fixtures/filesRead';
import { storeFolderPerTest } from '../../node/store/fixtures/storeFolder';
import { countingStore } from '../../../support/countingStore';
import { following, openState } from '../../../support/sessionStates';

const SESSION = 'sopen';
const TURNS = 90;

function usage(index: number, items: RequestItem[]): RequestUsageRecord {
  return {
    id: `u${index}`, sessionId: SESSION, requestIndex: index, createdAt: index * 10, model: 'm', contextWindow: 100_000 + index, maxOutputTokens: 8_000,
    components: { system: 11, skills: 0, tools: 22, messages: 0, toolResults: items.length, summaries: 0 }, estimatedInputTokens: items.length, items,
  };
}


describe('opening a long session in a new window', function () {
  this.timeout(120_000);
  const stores = storeFolderPerTest('tally-open-reads-');

  it('reads each sealed segment file at most once before the chat and the inspector have their first state, and each list once', async () => {
    const folder = stores.folder();
    const writing = await stores.openStore(folder, { debounceMs: 1e9, segmentMaxBytes: 24 * 1024 });
    await writing.createSession({ id: SESSION, title: 'long' });
    const random = prng(7);
    let items: RequestItem[] = [];
    for (let t = 0; t < TURNS; t++) {
      const c = call('run_command', { command: `npm test ${t}` });
      const at = t * 10;
      await writing.putMessages(SESSION, [
        msg({ role: 'user', content: `turn ${t}`, createdAt: at + 1 }),
        msg({ role: 'assistant', content: `step ${t}`, toolCalls: [c], createdAt: at + 2 }),
        msg({ role: 'tool', content: logOutput(random, 30, false), toolCallId: c.id, createdAt: at + 3 }),
      ]);
      items = [...items, { messageId: `m${t}`, role: 'tool', kind: 'tool_result', tokens: 40, badges: [], preview: `output ${t}` }];
      await writing.addRequestUsage(usage(t, items));
      if (t % 30 === 29) {
        await writing.addCompactionEvent({ id: `cmp${t}`, sessionId: SESSION, trigger: 'auto', status: 'complete', strategies: [], startedAt: at + 4, tokensBefore: 10, tokensAfter: 5, messagesBefore: 3, messagesAfter: 1, durationMs: 1, removed: [] } as never);
        await writing.saveSnapshot({ sessionId: SESSION, compactionId: `cmp${t}`, tokenCount: 10, createdAt: at + 3, messages: [msg({ role: 'user', content: `summary to ${t}`, createdAt: at + 3 })] });
      }
      if (t % 5 === 4) await writing.flush();
    }
    await writing.close();

    const { store, reads } = countingStore(await stores.openStore(folder, { debounceMs: 1e9 }));
    const policy = policyNamed('tally');
    const { result, read } = await segmentsReadDuring(async () => {
      // What the session controller reads to open the session: the session resumes while its view
      // is read; the chat's and the inspector's first states are then built from the view.
      // The last request is read once, for the model's figures and for the resume.
      const lastRequest = readLastRequest(store, SESSION);
      const last = (await lastRequest).record;
      const resuming = ContextSession.open({ store, sessionId: SESSION, settings: policy.settings({ ...DEFAULT_SETTINGS, contextWindow: 128_000, maxOutputTokens: 8_192 }), counter: getTokenCounter(), strategies: policy.strategies, contextWindow: 128_000, maxOutputTokens: 8_192, lastRequest });
      const [session, view] = await Promise.all([resuming, openState(store, SESSION, 200, resuming.then((s) => s.takeResumedTranscript()))]);
      return { contextSession: session, last, view };
    });
    assert.equal(result.last?.requestIndex, TURNS - 1);
    assert.equal(result.last?.contextWindow, 100_000 + TURNS - 1, 'the last request\'s figures');
    assert.equal(result.view.entries.entries().filter((e) => e.kind === 'user' || e.kind === 'assistant').length, 133, 'the newest 200 messages: 66 whole turns (a user message and a reply) and the reply before them');
    assert.equal(result.view.records.requests.length, TURNS);
    assert.deepEqual(result.view.records.compactions.map((e) => e.id), ['cmp29', 'cmp59', 'cmp89']);
    assert.ok(result.contextSession.messages.length > 0);

    const segments = new Set(read);
    assert.ok(segments.size >= 8, `a session of many segments (${segments.size})`);
    const twice = [...segments].filter((path) => read.filter((p) => p === path).length > 1);
    assert.deepEqual(twice, [], `read more than once: ${twice.length} of ${segments.size} files, ${read.length} reads`);
    assert.equal(reads.listRequestUsage ?? 0, 1, 'the usage figures listed once');
    assert.equal(reads.listCompactionHeads, 1, 'the compactions listed once, by their heads');
    assert.equal(reads.listCompactionEvents ?? 0, 0, 'no whole record read to open');
    assert.equal(reads.loadRecentTranscript, 1);
    assert.equal(reads.nextRequestIndex, 1, 'where the requests left off, read once');
    assert.equal(reads.requestUsageAt, 1, 'the last request\'s figures, read once');
    assert.equal(result.contextSession.nextRequestIndex, TURNS, 'the next request follows the last');
  });
});
