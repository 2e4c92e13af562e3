import { strict as assert } from 'assert';
import { countMessage } from '../../../../src/core/accounting/messageTokens';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { Summarizer } from '../../../../src/core/compaction/types';
import type { Message } from '../../../../src/core/model/message';
import type { SessionStore } from '../../../../src/core/ports/sessionStore';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const PROPOSED = 'The user asked to explore the repository. The loader reads config from relative paths.';
const EDITED = 'The user asked to explore the repository. Keep in mind: config paths are resolved against the workspace root, never the process cwd, and the snapshot diff in test/config must stay.';

let ids = 0;
const withId = (m: Omit<Message, 'id'>): Message => ({ ...m, id: `m${++ids}` });

/** A summarizer that always proposes the same text and counts how often it was asked. */
function scriptedSummarizer(): Summarizer & { calls: number } {
  const s = {
    name: 'scripted',
    calls: 0,
    summarize: async () => {
      s.calls++;
      return PROPOSED;
    },
  };
  return s;
}

async function filledSession(store: SessionStore, sessionId: string, summarizer: Summarizer): Promise<ContextSession> {
  const session = await ContextSession.open({ store, sessionId, settings: withSettings({ contextWindow: 16_000, maxOutputTokens: 2_000 }), counter, summarizer });
  await session.append(withId({ role: 'user', kind: 'user', content: 'Explore the repository.', agentVisible: true, userVisible: true, createdAt: 0 }));
  for (const turn of scriptedTurns(12, 2, 1000)) {
    await session.append(withId({ role: 'assistant', kind: 'assistant', content: turn.assistantText, toolCalls: turn.calls.map((c) => c.call), agentVisible: true, userVisible: true, createdAt: 0 }));
    for (const c of turn.calls) await session.recordToolResult(c.call, c.output, { isError: c.isError });
  }
  return session;
}

const summaryMessages = (messages: readonly Message[]) => messages.filter((m) => m.kind === 'summary');

describe('a summary the user edited in the compaction preview', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let sessionId: string;

  beforeEach(async () => {
    env = await tempStore();
    sessionId = (await env.store.createSession({ title: 'test' })).id;
  });
  afterEach(async () => env.dispose());

  it('replaces the history with the edited text, counts it, sends it, and keeps the original on the record', async () => {
    const summarizer = scriptedSummarizer();
    const session = await filledSession(env.store, sessionId, summarizer);
    const only = ['threshold-summarization'];
    const preview = await session.compact({ trigger: 'manual', dryRun: true, only });
    assert.equal(preview.summary, PROPOSED, 'the preview proposes a summary');
    const asked = summarizer.calls;

    const result = await session.compact({ trigger: 'manual', only, userSummary: { text: EDITED, proposed: PROPOSED } });
    assert.equal(result.status, 'complete');
    assert.equal(summarizer.calls, asked, 'no new summary is written: the one confirmed is used');

    const stored = await env.store.listCompactionEvents(sessionId);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].summary, EDITED, 'the record holds what the user wrote');
    assert.equal(stored[0].originalSummary, PROPOSED, 'and the summary as proposed');

    const sent = summaryMessages(session.planRequest().messages);
    assert.equal(sent.length, 1);
    assert.ok(sent[0].content.endsWith(`\n${EDITED}`), 'the next request carries the edited summary');
    assert.ok(!sent[0].content.includes(PROPOSED), 'and not the proposed one');

    // Counted with its real tokens: the result differs from the preview by what the edit added.
    const proposedMessage = { ...sent[0], content: sent[0].content.replace(EDITED, PROPOSED) };
    const added = countMessage(sent[0], counter) - countMessage(proposedMessage, counter);
    assert.ok(added > 10, 'the edit is longer');
    assert.ok(Math.abs(result.estimatedTokensAfter! - preview.estimatedTokensAfter! - added) <= 2, `after ${result.estimatedTokensAfter} = preview ${preview.estimatedTokensAfter} + ${added}`);
  });

  it('stores a summary confirmed unchanged as it was shown, not marked as edited', async () => {
    const summarizer = scriptedSummarizer();
    const session = await filledSession(env.store, sessionId, summarizer);
    const only = ['threshold-summarization'];
    await session.compact({ trigger: 'manual', dryRun: true, only });
    const asked = summarizer.calls;
    await session.compact({ trigger: 'manual', only, userSummary: { text: PROPOSED, proposed: PROPOSED } });
    assert.equal(summarizer.calls, asked);
    const [stored] = await env.store.listCompactionEvents(sessionId);
    assert.equal(stored.summary, PROPOSED);
    assert.equal(stored.originalSummary, undefined, 'an untouched summary is not "edited by you"');
  });

  it('fails and changes nothing when the compaction writes no summary to put the edit in', async () => {
    const session = await filledSession(env.store, sessionId, scriptedSummarizer());
    const before = session.messages.map((m) => m.id);
    const result = await session.compact({ trigger: 'manual', only: ['tool-result-masking'], userSummary: { text: EDITED, proposed: PROPOSED } });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /wrote no summary, so the one you confirmed was not used/);
    assert.deepEqual(session.messages.map((m) => m.id), before, 'the history is as it was');
  });
});
