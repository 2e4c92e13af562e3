import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import { AgentSession } from '../../../../src/core/agent/agentSession';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { ContextSession } from '../../../../src/core/context/contextSession';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { withSettings } from '../../../../src/core/settings';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { tempStore } from '../../../support/tempStore';
import { testRegistry } from '../../../support/toolRegistry';

const FIXED = { system: 50, skills: 0, tools: 0 };

/** A turn held at the hard block with automatic compaction off, as the chat's Compact now and Send anyway go on with it. */
describe('agent loop: a turn held at the hard block', function () {
  this.timeout(60_000);
  let server: FakeOpenAIServer;
  let env: Awaited<ReturnType<typeof tempStore>>;
  beforeEach(async () => {
    server = await new FakeOpenAIServer({ apiKey: 'sk-test' }).start();
    env = await tempStore();
  });
  afterEach(async () => {
    await server.close();
    await env.dispose();
  });

  async function setup() {
    const sessionId = (await env.store.createSession({ title: 'held' })).id;
    const settings = withSettings({ contextWindow: 3_000, maxOutputTokens: 500, compactTrigger: 0.6, hardBlock: 0.8, autoCompact: false });
    const contextSession = await ContextSession.open({ store: env.store, sessionId, settings, counter: getTokenCounter() });
    const agent = new AgentSession({
      contextSession,
      provider: createOpenAIProvider({ apiKey: 'sk-test', baseUrl: server.url, retry: { maxAttempts: 1, sleep: async () => undefined } }),
      model: 'test-model',
      maxOutputTokens: 500,
      prompt: { prepare: async () => ({ system: [{ text: 'Be brief.' }], tools: [], fixed: FIXED, sections: { system: [], tools: [], dynamic: [] } }) },
      tools: testRegistry({ tools: () => [] }),
      sleep: async () => undefined,
    });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    return { contextSession, agent, events };
  }

  it('stops with a notice offering Compact now and Send anyway; Send anyway sends it uncompacted, Compact now compacts by hand and goes on', async () => {
    const { contextSession, agent, events } = await setup();
    const filler = 'The build log said: parser config logger cache route schema token buffer index queue. '.repeat(45);
    server.enqueue({ type: 'reply', parts: [{ text: 'Read it.' }] }, { type: 'reply', parts: [{ text: 'Read that too.' }] });
    assert.equal(await agent.send(filler), 'end_turn', JSON.stringify(events.filter((e) => e.type === 'error')));
    assert.equal(await agent.send(filler), 'end_turn');
    assert.equal(await agent.send(filler), 'held');
    assert.equal(server.requests.length, 2, 'the held request was not sent');
    const notice = events.filter((e) => e.type === 'notice').at(-1);
    assert.ok(notice?.type === 'notice' && notice.action === 'compact');
    assert.match(notice.message, /automatic compaction is off \(tally\.compaction\.auto\)/);
    assert.equal(events.some((e) => e.type === 'compaction'), false, 'nothing was compacted silently');

    server.enqueue({ type: 'reply', parts: [{ text: 'Sent anyway.' }] });
    assert.equal(await agent.continueTurn({ overBlock: true }), 'end_turn');
    assert.equal(server.requests.length, 3);
    assert.equal(events.some((e) => e.type === 'compaction'), false);
    const usersSent = (server.requests[2].body.messages as Array<{ role: string }>).filter((m) => m.role === 'user').length;
    assert.equal(usersSent, 3, 'the request went out whole');

    // The next turn is held again; compacting by hand lets it go on.
    assert.equal(await agent.send(filler), 'held');
    const manual = await contextSession.compact({ trigger: 'manual', fixed: FIXED });
    assert.equal(manual.status, 'complete');
    server.enqueue({ type: 'reply', parts: [{ text: 'After compaction.' }] });
    assert.equal(await agent.continueTurn(), 'end_turn');
    assert.equal(server.requests.length, 4);
    assert.match(JSON.stringify(server.requests[3].body.messages), /The build log said/, 'the latest message is still sent');
  });

  it('a server that refuses the request as too long is not followed by a compaction when automatic compaction is off', async () => {
    const { agent, events } = await setup();
    server.enqueue({ type: 'error', status: 400, body: { error: { message: "This model's maximum context length is 2000 tokens. However, your messages resulted in 2400 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } } } as never);
    assert.equal(await agent.send('hello'), 'held');
    assert.equal(events.some((e) => e.type === 'compaction'), false);
    const notice = events.filter((e) => e.type === 'notice').at(-1);
    assert.ok(notice?.type === 'notice' && notice.action === 'compact' && /refused the request as too long/.test(notice.message));
  });
});
