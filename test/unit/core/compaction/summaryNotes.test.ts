import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { LlmSummarizer } from '../../../../src/core/compaction/llmSummarizer';
import type { Summarizer } from '../../../../src/core/compaction/types';
import { ContextSession } from '../../../../src/core/context/contextSession';
import type { Message } from '../../../../src/core/model/message';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { withSettings } from '../../../../src/core/settings';
import { scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
let ids = 0;
const withId = (m: Omit<Message, 'id'>): Message => ({ ...m, id: `n${++ids}` });

async function filledSession(store: SessionStore, sessionId: string, summarizer: Summarizer): Promise<ContextSession> {
  const session = await ContextSession.open({ store, sessionId, settings: withSettings({ contextWindow: 16_000, maxOutputTokens: 2_000 }), counter, summarizer });
  await session.append(withId({ role: 'user', kind: 'user', content: 'Explore the repository.', agentVisible: true, userVisible: true, createdAt: 0 }));
  for (const turn of scriptedTurns(12, 2, 1000)) {
    await session.append(withId({ role: 'assistant', kind: 'assistant', content: turn.assistantText, toolCalls: turn.calls.map((c) => c.call), agentVisible: true, userVisible: true, createdAt: 0 }));
    for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
  }
  return session;
}

const NOTE_WORDS = /local summary used|model summary failed|the model's summary left out|\(completed:/;

describe("what checking a model's summary did is on the compaction's record, never in the summary the model reads", function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let sessionId: string;

  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title: 'test' })).id;
  });
  afterEach(async () => env.dispose());

  const cases: Array<{ name: string; complete: () => Promise<string>; note: RegExp }> = [
    { name: 'a summary without the checkpoint shape, replaced by the local one', complete: async () => '[scripted model] Listing the workspace.', note: /^the model's summary had 0 of the 6 headings: local summary used$/ },
    {
      name: 'a model that failed',
      complete: async () => {
        throw new Error('HTTP 529 overloaded');
      },
      note: /^model summary failed: HTTP 529 overloaded; local summary used$/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the next request's summary has no note; the stored record has it`, async () => {
      const session = await filledSession(env.store, sessionId, new LlmSummarizer(c.complete, 'cheap-model'));
      const result = await session.compact({ trigger: 'manual', only: ['threshold-summarization'] });
      assert.equal(result.status, 'complete');

      const sent = session.planRequest().messages.filter((m) => m.kind === 'summary');
      assert.equal(sent.length, 1, 'the next request carries one summary');
      assert.doesNotMatch(sent[0].content, NOTE_WORDS, 'the model never reads the check note');
      assert.doesNotMatch(result.summary ?? '', NOTE_WORDS);

      const [stored] = await env.store.listCompactionEvents(sessionId);
      assert.equal(stored.summaryNotes?.length, 1, 'the record keeps the note');
      assert.match(stored.summaryNotes![0], c.note);
    });
  }

  it('a preview shows the note beside the proposed summary, not inside it', async () => {
    const session = await filledSession(env.store, sessionId, new LlmSummarizer(async () => 'Task: explore.', 'cheap-model'));
    const preview = await session.compact({ trigger: 'manual', dryRun: true, only: ['threshold-summarization'] });
    assert.doesNotMatch(preview.summary ?? '', NOTE_WORDS);
    assert.match(preview.summaryNotes?.join('\n') ?? '', /local summary used/);
  });
});
