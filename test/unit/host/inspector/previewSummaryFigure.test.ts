/**
 * The compaction preview's "after" figure follows the summary the user edits: the webview sends
 * the text, the host counts the context it would leave with the session's own counter and basis,
 * and a confirm with that text records, and the meter shows, exactly the figure last shown.
 * A real sql.js store, a real context session with a provider's report behind it, the real
 * validator and intent handlers.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { Summarizer } from '../../../../src/core/compaction/types';
import { ContextSession } from '../../../../src/core/context/contextSession';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';
import { chatMeter } from '../../../../src/host/figures/turnFigures';
import { inspectorHandlers } from '../../../../src/host/inspector/inspectorIntents';
import type { HostToInspector } from '../../../../src/protocol/inspector';
import { receiveWebviewMessage } from '../../../../src/protocol/receive';
import { parseInspectorMessage } from '../../../../src/protocol/validate';
import { resumedSession } from '../../../support/sessionStates';
import { scriptedTurns } from '../../../support/syntheticSession';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED = { system: 700, skills: 0, tools: 300 };
const PROPOSED = 'The user asked to explore the repository. The loader reads config from relative paths.';
const LONGER = `${PROPOSED} Keep in mind: config paths are resolved against the workspace root, never the process cwd; the snapshot diff in test/config must stay; ${'the parser test fails on empty input; '.repeat(20)}`;
const summarizer: Summarizer = { name: 'scripted', summarize: async () => PROPOSED };

let ids = 0;
const withId = (m: Omit<Message, 'id'>): Message => ({ ...m, id: `p${++ids}` });

type Figures = Extract<HostToInspector, { type: 'previewFigures' }>;
type Preview = Extract<HostToInspector, { type: 'preview' }>;

describe("the compaction preview's figure follows the summary the user edits", function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  afterEach(() => env.dispose());

  async function opened() {
    env = await tempStore('tally-preview-figure-');
    const info = await env.store.createSession({ title: 'explore' });
    const contextSession = await ContextSession.open({ store: env.store, sessionId: info.id, counter, summarizer, settings: withSettings({ contextWindow: 64_000, maxOutputTokens: 2_000 }) });
    await contextSession.append(withId({ role: 'user', kind: 'user', content: 'Explore the repository.', agentVisible: true, userVisible: true, createdAt: 0 }));
    for (const turn of scriptedTurns(12, 2, 1000)) {
      await contextSession.append(withId({ role: 'assistant', kind: 'assistant', content: turn.assistantText, toolCalls: turn.calls.map((c) => c.call), agentVisible: true, userVisible: true, createdAt: 0 }));
      for (const c of turn.calls) await contextSession.recordToolResult(c.call, c.output, { isError: c.isError });
    }
    // The provider's count differs from Tally's: the figures are on the meter's basis, not the estimate's.
    const planned = await contextSession.nextRequest({ fixed: FIXED });
    await contextSession.recordResponse(planned, { model: 'gpt-4o', reported: { inputTokens: planned.plan.budget.used + 1_234, outputTokens: 10 } });
    const session = await resumedSession(env.store, info, contextSession);
    const only = ['threshold-summarization'];
    const posted: HostToInspector[] = [];
    const errors: string[] = [];
    const sessions = {
      current: async () => session,
      store: async () => env.store,
      setPinned: async () => true,
      preview: (focus?: string) => contextSession.compact({ trigger: 'manual', focus, dryRun: true, only }),
      compact: (focus?: string, userSummary?: { text: string; proposed: string }) => contextSession.compact({ trigger: 'manual', focus, userSummary, only }),
    } as never;
    const handlers = inspectorHandlers({ sessions, post: (m) => void posted.push(m), sendState: async () => undefined, showEarlier: async () => undefined, executeCommand: async () => undefined, showInformation: () => undefined });
    const send = async (raw: unknown) => {
      posted.length = 0;
      await receiveWebviewMessage(raw, { source: 'inspector', parse: parseInspectorMessage, log: { warn: (t: string) => void errors.push(t) }, handlers, onError: (e: unknown) => void errors.push(String(e)) });
      return [...posted];
    };
    return { contextSession, send, errors, sessionId: info.id };
  }

  it('an edited summary is counted by the host; a confirm with it records, and the meter shows, the figure the preview last showed', async () => {
    const { contextSession, send, errors, sessionId } = await opened();
    const preview = (await send({ type: 'previewCompaction' })).find((m): m is Preview => m.type === 'preview')!.preview;
    assert.equal(preview.summary, PROPOSED);
    assert.notEqual(preview.tokensAfter, preview.estimatedTokensAfter, 'the meter basis differs from the estimate here');

    const [unchanged] = (await send({ type: 'countPreviewSummary', previewId: preview.id, summary: PROPOSED })) as Figures[];
    assert.deepEqual([unchanged.tokensAfter, unchanged.estimatedTokensAfter], [preview.tokensAfter, preview.estimatedTokensAfter], 'the proposed text counts as the preview did');

    const [edited] = (await send({ type: 'countPreviewSummary', previewId: preview.id, summary: LONGER })) as Figures[];
    assert.equal(edited.type, 'previewFigures');
    assert.deepEqual([edited.previewId, edited.summary], [preview.id, LONGER]);
    const added = counter.count(LONGER) - counter.count(PROPOSED);
    assert.ok(added > 100);
    assert.ok(Math.abs(edited.tokensAfter - preview.tokensAfter - added) <= 2, `after ${edited.tokensAfter} = preview ${preview.tokensAfter} + ${added}`);
    assert.ok(Math.abs(edited.estimatedTokensAfter - preview.estimatedTokensAfter! - added) <= 2);

    await send({ type: 'confirmCompaction', summary: LONGER });
    assert.deepEqual(errors, []);
    const [stored] = await env.store.listCompactionEvents(sessionId);
    assert.equal(stored.summary, LONGER);
    assert.equal(stored.tokensAfter, edited.tokensAfter, "the record's figure is the one the preview last showed");
    assert.equal(stored.estimatedTokensAfter, edited.estimatedTokensAfter);
    assert.equal(chatMeter(contextSession, true).used, edited.tokensAfter, 'and the meter shows it');
  });

  it('refuses a count for a preview that is not the current one, and a malformed one, posting no figure', async () => {
    const { send, errors } = await opened();
    assert.deepEqual(await send({ type: 'countPreviewSummary', previewId: 'c-none', summary: 'mine' }), []);
    assert.match(errors.join('\n'), /no longer the current one: preview the compaction again/);
    const preview = (await send({ type: 'previewCompaction' })).find((m): m is Preview => m.type === 'preview')!.preview;
    errors.length = 0;
    for (const bad of [{ summary: 42 }, { summary: 's'.repeat(256 * 1024 + 1) }, { summary: 'x', extra: true }, {}]) {
      assert.deepEqual(await send({ type: 'countPreviewSummary', previewId: preview.id, ...bad }), [], JSON.stringify(bad).slice(0, 80));
    }
    assert.equal(errors.length, 4);
    assert.ok(errors.every((e) => /rejected a message from the webview \(type "countPreviewSummary"\)/.test(e)), errors.join('\n'));
  });
});
