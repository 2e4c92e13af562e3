import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { assistantMessage } from '../../../../src/core/model/factories';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { forkSession } from '../../../../src/core/context/forkSession';
import { withSettings } from '../../../../src/core/settings';
import { forkEntryText } from '../../../../src/protocol/forkEntry';
import { tempStore } from '../../../support/tempStore';
import { following, openState } from '../../../support/sessionStates';

const counter = getTokenCounter('o200k_base');
const FIXED = { system: 700, skills: 0, tools: 300 };
const settings = withSettings({ contextWindow: 64_000, maxOutputTokens: 2_000, offloadThresholdBytes: 2_000 });

describe('a forked session as the chat and the inspector first show it', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  afterEach(() => env.dispose());

  it('shows the messages the request carried, then the fork entry with the figure the original request reported, and lists its stored result', async () => {
    env = await tempStore();
    const { id } = await env.store.createSession({ title: 'tests' });
    const session = await ContextSession.open({ store: env.store, sessionId: id, counter, settings });
    await session.appendUser('Run the tests.');
    await session.recordResponse(await session.nextRequest({ fixed: FIXED }), { model: 'm', reported: { inputTokens: 1_900, outputTokens: 9 } });
    const call = { id: 'c1', name: 'run_command', arguments: '{"command":"npm test"}' };
    await session.append(assistantMessage('Running them.', [call]));
    await session.recordToolResult(call, 'FAIL\n'.repeat(2_000));
    const request1 = await session.recordResponse(await session.nextRequest({ fixed: FIXED }), { model: 'm', reported: { inputTokens: 2_345, outputTokens: 9 } });
    await session.append(assistantMessage('One test fails.'));

    const forked = await forkSession(env.store, { fromSessionId: id, fromRequestIndex: 1 });
    const view = await openState(env.store, forked.info.id, 200);
    const entries = view.entries.entries();
    assert.deepEqual(entries.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => (e as { text: string }).text), ['Run the tests.', 'Running them.'], 'what request #1 carried, not the reply after it');
    const notice = entries.at(-1)!;
    assert.equal(notice.kind, 'compaction');
    const record = (notice as Extract<typeof notice, { kind: 'compaction' }>).record;
    assert.equal(forkEntryText(record), `Forked from request #1 with 3 messages, ${request1.estimatedInputTokens.toLocaleString('en-US')} tokens (request #1: ${request1.reportedInputTokens!.toLocaleString('en-US')} as the provider counted)`);
    // One number: the fork's meter, before its own first request, shows the entry's figure.
    const reopened = await ContextSession.open({ store: env.store, sessionId: forked.info.id, counter, settings });
    assert.equal(reopened.measure(FIXED).used, record.tokensAfter, "the fork's context now is the figure its entry says");
    assert.deepEqual(view.records.compactions.map((c) => c.trigger), ['fork']);
    assert.equal(view.records.blobs.length, 1, 'the offloaded result is listed in the fork');
    assert.equal((await env.store.readBlob(forked.info.id, view.records.blobs[0].id, 0, 4)).bytes.length, 4);
  });
});
