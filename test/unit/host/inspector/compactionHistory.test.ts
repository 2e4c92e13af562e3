/**
 * A session whose history holds a compaction of thousands of removed items: the inspector's
 * updates after a turn do not carry it again, its whole state carries the first page of each
 * compaction's removed items with the true count and tokens, and the rest come when asked for.
 * A real sql.js store, a real context session and its state, the inspector's feed as the panel runs it.
 */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { assistantMessage } from '../../../../src/core/model/factories';
import type { CompactionEventRecord, RemovedItem } from '../../../../src/core/model/records';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { inspectorHandlers } from '../../../../src/host/inspector/inspectorIntents';
import type { ActiveSession } from '../../../../src/host/sessionState/sessionPorts';
import { REMOVED_FIRST, REMOVED_MORE, type HostToInspector } from '../../../../src/protocol/inspector';
import { receiveWebviewMessage } from '../../../../src/protocol/receive';
import { parseInspectorMessage } from '../../../../src/protocol/validate';
import { inspectorOf, resumedSession } from '../../../support/sessionStates';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED = { system: 700, skills: 0, tools: 300 };

/** A removed item as a long session's compaction records it (about 460 bytes, with its preview). */
function removedItem(i: number): RemovedItem {
  return { messageId: `m-${i}`, reason: i % 3 ? 'archived' : 'summarized', strategy: 'tool-result-masking', kind: 'tool_result', role: 'tool', tokens: 200 + (i % 50), toolName: 'run_command', offloadRef: `res_${i}`, preview: `> npm test (run ${i})\n${'PASS test/some/long/path/to/a/spec/file.test.ts · '.repeat(6)}` };
}

function bigCompaction(sessionId: string, count: number, startedAt: number): CompactionEventRecord {
  return { id: `cmp-${count}`, sessionId, trigger: 'auto', status: 'complete', strategies: ['tool-result-masking'], tokensBefore: 1_200_000, tokensAfter: 90_000, messagesBefore: count + 10, messagesAfter: 10, startedAt, durationMs: 900, removed: Array.from({ length: count }, (_, i) => removedItem(i)) };
}

const bytes = (message: HostToInspector) => JSON.stringify(message).length;

describe('inspector: a large compaction in the history does not travel with every update', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  afterEach(() => env.dispose());

  async function opened(compaction: (sessionId: string) => CompactionEventRecord) {
    env = await tempStore('tally-compaction-history-');
    const info = await env.store.createSession({ title: 'long' });
    const record = compaction(info.id);
    await env.store.addCompactionEvent(record);
    const contextSession = await ContextSession.open({ store: env.store, sessionId: info.id, counter, settings: withSettings({ contextWindow: 64_000, maxOutputTokens: 2_000 }) });
    const session = await resumedSession(env.store, info, contextSession);
    return { session, contextSession, record };
  }

  async function turn(contextSession: ContextSession, n: number): Promise<void> {
    await contextSession.appendUser(`question ${n}`);
    await contextSession.append(assistantMessage(`answer ${n}`));
    await contextSession.recordResponse(await contextSession.nextRequest({ fixed: FIXED }), { model: 'gpt-4o', reported: { inputTokens: 1_500 + n, outputTokens: 10 } });
  }

  it('after a turn the update is a few KB, not the 5,000 removed items again; a new compaction brings the history back', async () => {
    const { session, contextSession, record } = await opened((id) => bigCompaction(id, 5_000, 1_000));
    assert.ok(JSON.stringify(record).length > 2_000_000, 'the record itself is megabytes');
    const { feed, posted } = inspectorOf(session, env.store);
    await feed.whole();

    posted.length = 0;
    await turn(contextSession, 1);
    await feed.settled();
    assert.ok(posted.length > 0 && posted.every((m) => m.type === 'update'));
    for (const update of posted) {
      assert.ok(bytes(update) < 6_000, `${bytes(update)} bytes posted for a write of the turn`);
      assert.equal((update as Extract<HostToInspector, { type: 'update' }>).compactions, undefined, 'the history did not change: it is not sent');
    }

    posted.length = 0;
    const compacted = await contextSession.compact({ trigger: 'manual' });
    assert.notEqual(compacted.status, 'error', JSON.stringify(compacted.error));
    await feed.settled();
    const after = posted.find((m): m is Extract<HostToInspector, { type: 'update' }> => m.type === 'update' && m.compactions !== undefined);
    assert.deepEqual(after?.compactions?.map((c) => c.id), [compacted.id, record.id], 'the changed history is sent, newest first');
    assert.ok(bytes(after!) < 100_000, `${bytes(after!)} bytes for the changed history`);
  });

  it("the whole state carries each compaction's first removed items with the true count and tokens", async () => {
    const { session, record } = await opened((id) => bigCompaction(id, 5_000, 1_000));
    const { feed, posted } = inspectorOf(session, env.store);
    await feed.whole();
    const [state] = posted;
    assert.equal(state.type, 'state');
    const [shown] = (state as Extract<HostToInspector, { type: 'state' }>).state.compactions;
    assert.deepEqual(shown.removedFirst, record.removed.slice(0, REMOVED_FIRST));
    assert.equal(shown.removedCount, 5_000);
    assert.equal(shown.removedTokens, record.removed.reduce((sum, r) => sum + r.tokens, 0));
    assert.equal('removed' in shown, false, 'the whole list does not travel');
    assert.ok(bytes(state) < 100_000, `${bytes(state)} bytes for the whole state`);
  });

  describe('the removed items past the first page come when the user asks', () => {
    const posted: HostToInspector[] = [];
    let errors: string[];

    function handlersFor(session: ActiveSession, preview?: CompactionEventRecord) {
      const sessions = { current: async () => session, store: async () => env.store, setPinned: async () => true, preview: async () => ({ ...preview!, dryRun: true, messages: [] }), compact: async () => assert.fail('no compaction') } as never;
      return inspectorHandlers({ sessions, post: (m) => void posted.push(m), sendState: async () => undefined, showEarlier: async () => undefined, executeCommand: async () => undefined, showInformation: () => undefined });
    }

    async function send(handlers: ReturnType<typeof handlersFor>, raw: unknown): Promise<HostToInspector[]> {
      posted.length = 0;
      errors = [];
      const warnings: string[] = [];
      await receiveWebviewMessage(raw, { source: 'inspector', parse: parseInspectorMessage, log: { warn: (text: string) => void warnings.push(text) }, handlers, onError: (e: unknown) => void errors.push(String(e)) });
      errors.push(...warnings);
      return [...posted];
    }

    it("'show all' after the first page returns every other item, so the webview holds all 5,000", async () => {
      const { session, record } = await opened((id) => bigCompaction(id, 5_000, 1_000));
      const { feed, posted: sent } = inspectorOf(session, env.store);
      await feed.whole();
      const state = sent[0] as Extract<HostToInspector, { type: 'state' }>;
      const first = state.state.compactions[0].removedFirst;
      const [answer] = await send(handlersFor(session), { type: 'showRemoved', compactionId: record.id, offset: first.length });
      assert.equal(answer.type, 'removedItems');
      const page = answer as Extract<HostToInspector, { type: 'removedItems' }>;
      assert.deepEqual([page.compactionId, page.offset, page.total], [record.id, REMOVED_FIRST, 5_000]);
      assert.deepEqual([...first, ...page.items], record.removed, 'the first page and the answer are every removed item, in order');
    });

    it('a longer list comes a page at a time until all of it is held', async () => {
      const count = 2 * REMOVED_MORE + 700;
      const { session, record } = await opened((id) => bigCompaction(id, count, 1_000));
      const handlers = handlersFor(session);
      const held = record.removed.slice(0, REMOVED_FIRST);
      while (held.length < count) {
        const [answer] = (await send(handlers, { type: 'showRemoved', compactionId: record.id, offset: held.length })) as Array<Extract<HostToInspector, { type: 'removedItems' }>>;
        assert.ok(answer.items.length > 0 && answer.items.length <= REMOVED_MORE, `${answer.items.length} items in one answer`);
        held.push(...answer.items);
      }
      assert.deepEqual(held, record.removed);
    });

    it("the preview carries the first items it would remove with their count; the rest are asked for by the preview's id", async () => {
      const { session } = await opened((id) => bigCompaction(id, 3, 1_000));
      const dryRun = { ...bigCompaction(session.info.id, 4_000, 2_000), id: 'cmp-dry-run' };
      const handlers = handlersFor(session, dryRun);
      const previewed = (await send(handlers, { type: 'previewCompaction' })).find((m) => m.type === 'preview') as Extract<HostToInspector, { type: 'preview' }>;
      assert.deepEqual([previewed.preview.id, previewed.preview.removedFirst.length, previewed.preview.removedCount], ['cmp-dry-run', REMOVED_FIRST, 4_000]);
      assert.equal('removed' in previewed.preview, false);
      const [answer] = (await send(handlers, { type: 'showRemoved', compactionId: 'cmp-dry-run', offset: REMOVED_FIRST })) as Array<Extract<HostToInspector, { type: 'removedItems' }>>;
      assert.deepEqual([...previewed.preview.removedFirst, ...answer.items], dryRun.removed);
    });

    it('a malformed ask is refused before the host acts, and an unknown compaction gets a clear error', async () => {
      const { session, record } = await opened((id) => bigCompaction(id, 500, 1_000));
      const handlers = handlersFor(session);
      for (const bad of [
        { type: 'showRemoved', compactionId: record.id, offset: -1 },
        { type: 'showRemoved', compactionId: record.id, offset: 1.5 },
        { type: 'showRemoved', compactionId: record.id, offset: '100' },
        { type: 'showRemoved', offset: 100 },
        { type: 'showRemoved', compactionId: '', offset: 100 },
        { type: 'showRemoved', compactionId: 'x'.repeat(10_000), offset: 100 },
        { type: 'showRemoved', compactionId: record.id, offset: 100, all: true },
      ]) {
        assert.ok('error' in (parseInspectorMessage(bad) as object), `refused: ${JSON.stringify(bad).slice(0, 80)}`);
        assert.deepEqual(await send(handlers, bad), [], 'nothing is answered');
      }
      assert.deepEqual(await send(handlers, { type: 'showRemoved', compactionId: 'cmp-elsewhere', offset: 100 }), []);
      assert.match(errors.join('\n'), /not in the history of the session shown/);
    });
  });
});
