import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { assistantMessage, userMessage } from '../../../../src/core/model/factories';
import type { SessionChange } from '../../../../src/core/context/sessionChanges';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { withSettings } from '../../../../src/core/settings';
import { tempStore } from '../../../support/tempStore';

const counter = getTokenCounter('o200k_base');
const FIXED = { system: 700, skills: 0, tools: 300 };

describe('a session tells its views what it wrote', function () {
  this.timeout(60_000);
  let env: Awaited<ReturnType<typeof tempStore>>;
  let session: ContextSession;
  let changes: SessionChange[];

  beforeEach(async () => {
    env = await tempStore();
    const { id } = await env.store.createSession({ title: 'changes' });
    session = await ContextSession.open({ store: env.store, sessionId: id, counter, settings: withSettings({ contextWindow: 32_000, maxOutputTokens: 2_000, offloadThresholdBytes: 1_000 }) });
    changes = [];
    session.onChange((change) => changes.push(change));
  });
  afterEach(() => env.dispose());

  it('carries each appended message, the aborted outputs it closed included, as stored', async () => {
    const call = { id: 'c1', name: 'run_command', arguments: '{"command":"npm test"}' };
    await session.append(userMessage('run the tests'), assistantMessage('running', [call]));
    await session.append(userMessage('never mind'));
    const appended = changes.flatMap((c) => (c.type === 'messages' ? c.appended : []));
    assert.deepEqual(appended.map((m) => m.kind), ['user', 'assistant', 'aborted', 'user']);
    const stored = await env.store.loadTranscript(session.sessionId);
    assert.deepEqual(appended.map((m) => m.id), stored.map((m) => m.id));
    assert.deepEqual(appended.map((m) => m.createdAt), stored.map((m) => m.createdAt));
  });

  it('names a result when it is stored: its tool, its call arguments and the request that first carries it', async () => {
    const call = { id: 'c2', name: 'run_command', arguments: '{"command":"npm test"}' };
    await session.append(userMessage('run it'));
    const request = await session.nextRequest({ fixed: FIXED });
    await session.recordResponse(request, { model: 'm' });
    await session.append(assistantMessage('', [call]));
    await session.recordToolResult(call, 'x'.repeat(5_000));
    const result = changes.find((c) => c.type === 'result');
    assert.ok(result && result.type === 'result');
    assert.deepEqual(result.title, { toolName: 'run_command', arguments: '{"command":"npm test"}', requestIndex: request.requestIndex + 1 });
    assert.deepEqual((await env.store.listBlobs(session.sessionId)).map((b) => b.id), [result.blob.id]);
  });

  it('names each result a compaction stores with its own call\'s arguments', async () => {
    const calls = Array.from({ length: 40 }, (_, i) => ({ id: `call-${i}`, name: 'run_command', arguments: `{"command":"npm test -- shard ${i}"}` }));
    for (const call of calls) {
      await session.append(userMessage(`run shard ${call.id}`), assistantMessage('', [call]));
      await session.recordToolResult(call, `shard ${call.id}: ok\n`.repeat(40));
    }
    changes = [];
    await session.compact({ trigger: 'manual' });
    const named = changes.flatMap((c) => (c.type === 'result' ? [[c.blob.toolCallId, c.title.arguments]] : []));
    assert.ok(named.length >= 30, `${named.length} results stored by the compaction`);
    for (const [callId, args] of named) assert.equal(args, calls.find((c) => c.id === callId)?.arguments);
  });

  it('carries the usage record and the compaction event it stored, and a pin as a replaced message', async () => {
    const first = await session.appendUser('hello');
    const request = await session.nextRequest({ fixed: FIXED });
    const record = await session.recordResponse(request, { model: 'm', reported: { inputTokens: 1_234, outputTokens: 5 } });
    const usage = changes.find((c) => c.type === 'usage');
    assert.ok(usage && usage.type === 'usage');
    assert.equal(usage.record, record);
    assert.equal(usage.record.reportedInputTokens, 1_234);

    const compaction = await session.compact({ trigger: 'manual' });
    const event = changes.find((c) => c.type === 'compaction');
    assert.ok(event && event.type === 'compaction');
    assert.equal(event.record.id, compaction.id);
    assert.deepEqual((await env.store.listCompactionEvents(session.sessionId)).map((e) => e.id), [event.record.id]);

    await session.setPinned(first.id, true);
    const pin = changes[changes.length - 1];
    assert.ok(pin.type === 'messages');
    assert.deepEqual(pin.replaced.map((m) => [m.id, m.pinned]), [[first.id, true]]);
  });

  it('keeps the prompt fixed parts of the last request it planned', async () => {
    await session.appendUser('hello');
    const before = session.measure().estimatedTotal;
    await session.nextRequest({ fixed: FIXED });
    assert.deepEqual(session.fixed, FIXED);
    assert.equal(session.measure().estimatedTotal - before, 1_000);
    assert.equal(session.planRequest().budget.components.system, 700);
  });

  it('a listener that throws breaks neither the write nor the other listeners', async () => {
    const seen: string[] = [];
    session.onChange(() => {
      throw new Error('view failed');
    });
    session.onChange((c) => seen.push(c.type));
    await session.appendUser('still recorded');
    assert.deepEqual(seen, ['messages']);
    assert.equal((await env.store.loadTranscript(session.sessionId)).length, 1);
  });
});
