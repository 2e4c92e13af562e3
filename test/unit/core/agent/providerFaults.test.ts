/**
 * Reliability under broken streams: a real agent (real ContextSession on a real sql.js store in a
 * temp folder, real workspace tools) against the local fake servers speaking the real OpenAI and
 * Anthropic wire formats. For every fault: (a) how the turn ends, and that the error shown is
 * clear; (b) the history stored on disk is valid; (c) the session resumes (faultSuite.ts).
 * Only the stall test waits for a real (short) idle timeout.
 */
import { strict as assert } from 'assert';
import { assertCutOff, assertValidRequest, errorsOf, faultSuite, FIRST_PROMPT, textShown, WIRES } from './faultSuite';

for (const wire of WIRES) {
  describe(`provider faults through the agent loop: ${wire.name}`, function () {
    this.timeout(15_000);
    const f = faultSuite(wire);

    it('connection reset after some text, on every attempt: error "connection dropped", the text already shown kept and marked cut off, resumes', async () => {
      const { agent, events, agentDelays } = await f.begin();
      for (let i = 0; i < 3; i++) f.server.enqueue({ type: 'reply', parts: [{ text: 'Let me look at the file first.' }], fault: { afterFirst: 'text', action: 'reset' } });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(f.server.requests.length, 3, 'the first attempt and two re-sends');
      assert.deepEqual(agentDelays, [500, 1000], 'the loop backs off between re-sends with the providers\' backoff (jitter 0, injected sleep)');
      assert.equal(events.filter((e) => e.type === 'retry').length, 2);
      const errors = errorsOf(events);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].kind, 'stream_dropped');
      assert.match(errors[0].message, wire.label);
      assert.match(errors[0].message, /the connection dropped mid-answer/);
      assert.ok(textShown(events).length > 0, 'text had been streamed before the reset');
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant'], 'what the user saw is kept');
      assertCutOff(transcript[1].content, 'Let me look at the file first.', /the connection dropped mid-answer/);
      await f.resume(again, 0);
    });

    it('connection reset in the middle of a tool call: the earlier call stays paired, the cut call is never stored, resumes', async () => {
      const { agent, events } = await f.begin();
      f.server.enqueue({ type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { id: 'call_read_1', name: 'read_file', arguments: '{"path":"src/a.ts"}' } }] });
      for (let i = 0; i < 3; i++) {
        f.server.enqueue({ type: 'reply', parts: [{ toolCall: { id: `call_cut_${i}`, name: 'read_file', arguments: '{"path":"src/some/very/long/path/b.ts"}' } }], fault: { afterFirst: 'tool_args', action: 'reset' } });
      }
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(f.server.requests.length, 4);
      assert.ok(events.some((e) => e.type === 'tool_result' && e.callId === 'call_read_1'));
      assert.ok(!events.some((e) => e.type === 'tool_call' && e.call.id.startsWith('call_cut')), 'a cut call is never run');
      const [error] = errorsOf(events);
      assert.equal(error?.kind, 'stream_dropped');
      assert.match(error.message, /the connection dropped mid-answer/);
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant', 'tool']);
      assert.match(transcript[2].content, /answer = 42/);
      assert.ok(!JSON.stringify(transcript).includes('call_cut'), 'no trace of the cut call');
      await f.resume(again, 1);
    });

    it('a stream that stalls past the idle timeout: error "timed out … stalled", connection closed, resumes', async () => {
      const { agent, events, agentDelays } = await f.begin({ idleTimeoutMs: 150 });
      for (let i = 0; i < 3; i++) f.server.enqueue({ type: 'reply', parts: [{ text: 'Thinking very hard about it.' }], fault: { afterFirst: 'text', action: 'stall' } });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(f.server.requests.length, 3);
      assert.deepEqual(agentDelays, [500, 1000]);
      const [error] = errorsOf(events);
      assert.equal(error?.kind, 'timeout');
      assert.match(error.message, wire.label);
      assert.match(error.message, /timed out: the answer stalled for more than/);
      await Promise.all(f.server.requests.map((r) => f.server.clientLeft(r)));
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant']);
      assertCutOff(transcript[1].content, 'Thinking very hard about it.', /timed out/);
      await f.resume(again, 0);
    });

    it('invalid JSON in a data: line: error "unexpected response", not retried, resumes', async () => {
      const { agent, events, agentDelays } = await f.begin();
      f.server.enqueue({ type: 'reply', parts: [{ text: 'Here is a partial answer' }], fault: { afterFirst: 'text', action: 'malformed' } });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(f.server.requests.length, 1, 'a malformed stream is not re-sent');
      assert.deepEqual(agentDelays, []);
      assert.deepEqual(f.providerDelays, []);
      const errors = errorsOf(events);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].kind, 'malformed');
      assert.match(errors[0].message, wire.label);
      assert.match(errors[0].message, /unexpected response: an event's data is not a JSON object/);
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant']);
      assertCutOff(transcript[1].content, 'Here is a partial answer', /unexpected response/);
      await f.resume(again, 0);
    });

    it('garbage lines that are no SSE field are ignored: the turn completes with the right text', async () => {
      const { agent, events } = await f.begin();
      f.server.enqueue(
        { type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } }], garbage: true },
        { type: 'reply', parts: [{ text: 'The answer is 42.' }], garbage: true, splitBytes: 5 },
      );
      assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
      assert.deepEqual(errorsOf(events), []);
      assert.match(f.server.requests[0].rawBody, /read_file/);
      assert.equal(textShown(events), 'Reading.The answer is 42.');
      assertValidRequest(wire, f.server.requests[1].body);
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
      await f.resume(again, 1);
    });
  });
}
