/**
 * Reliability under error answers and odd replies (a 500 storm, 429 with retry-after, invalid tool
 * arguments, missing usage): the same real agent, stores and fake servers as providerFaults.test.ts.
 */
import { strict as assert } from 'assert';
import type { AgentEvent } from '../../../../src/core/agent/events';
import { deepIncludes } from '../providers/harness';
import { assertValidRequest, errorsOf, faultSuite, FIRST_PROMPT, WIRES } from './faultSuite';

for (const wire of WIRES) {
  describe(`provider errors and odd answers through the agent loop: ${wire.name}`, function () {
    this.timeout(15_000);
    const f = faultSuite(wire);

    it('a 500 storm: every attempt fails until retries run out, error names HTTP 500, resumes', async () => {
      const { agent, events, agentDelays } = await f.begin();
      for (let i = 0; i < 4; i++) f.server.enqueue({ type: 'server_error' });
      assert.equal(await agent.send(FIRST_PROMPT), 'error');
      assert.equal(f.server.requests.length, 4, 'the default 4 attempts');
      assert.deepEqual(f.providerDelays, [500, 1000, 2000], 'exponential backoff (jitter 0), via the injected sleep: no real waiting');
      assert.deepEqual(agentDelays, [], 'the loop does not multiply the provider’s retries');
      const retries = events.filter((e): e is Extract<AgentEvent, { type: 'retry' }> => e.type === 'retry');
      assert.deepEqual(retries.map((e) => [e.attempt, e.delayMs]), [[1, 500], [2, 1000], [3, 2000]], 'each wait is announced to the UI');
      assert.match(retries[0].reason, /server error \(HTTP 500\)/);
      const errors = errorsOf(events);
      assert.equal(errors.length, 1);
      assert.equal(errors[0].kind, 'server');
      assert.match(errors[0].message, wire.label);
      assert.match(errors[0].message, /server error \(HTTP 500\)/);
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user']);
      await f.resume(again, 0);
    });

    it('429 with retry-after: waits exactly what the server asked (injected sleep), then completes', async () => {
      const { agent, events, contextSession: session } = await f.begin();
      f.server.enqueue({ type: 'rate_limited', retryAfterSeconds: 7 }, { type: 'reply', parts: [{ text: 'The answer is 42.' }], usage: { input: 1500, output: 9 } });
      assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
      assert.deepEqual(f.providerDelays, [7_000], 'retry-after: 7 honoured, not the computed backoff, through the injected sleep (not waited in wall time)');
      const [retry] = events.filter((e): e is Extract<AgentEvent, { type: 'retry' }> => e.type === 'retry');
      assert.equal(retry?.delayMs, 7_000, 'the chat is told how long the wait is');
      assert.match(retry.reason, /rate.?limit|429/i);
      assert.equal(f.server.requests.length, 2);
      assert.equal(f.server.requests[1].rawBody, f.server.requests[0].rawBody, 'the same request is re-sent');
      assert.deepEqual(errorsOf(events), []);
      const usage = await f.store.listRequestUsage(session.sessionId);
      assert.equal(usage.length, 1, 'one request recorded, not two');
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant']);
      await f.resume(again, 0);
    });

    it('a tool call with invalid JSON arguments gets a tool result saying so, and the loop reaches a final answer', async () => {
      const { agent, events } = await f.begin();
      const raw = '{"path": "src/a.ts", "limit": ';
      f.server.enqueue(
        { type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { id: 'call_bad_args', name: 'read_file', arguments: raw } }] },
        (req) => {
          const result = wire.results(req.body).get('call_bad_args') ?? '';
          return /not valid JSON/.test(result)
            ? { type: 'reply', parts: [{ text: 'Retrying with valid JSON.' }, { toolCall: { id: 'call_good_args', name: 'read_file', arguments: '{"path":"src/a.ts"}' } }] }
            : { type: 'reply', parts: [{ text: `unexpected tool result: ${result}` }] };
        },
        { type: 'reply', parts: [{ text: 'The answer is 42.' }] },
      );
      assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
      assert.deepEqual(errorsOf(events), []);
      assert.equal(f.server.requests.length, 3, 'bad call, good call, answer: no error loop');
      const second = f.server.requests[1].body;
      assertValidRequest(wire, second);
      assert.match(wire.results(second).get('call_bad_args') ?? '', /^Invalid arguments for read_file: the arguments are not valid JSON/);
      assert.ok(deepIncludes(second, raw), 'the model’s raw arguments are sent back as it wrote them');
      assert.match(wire.results(f.server.requests[2].body).get('call_good_args') ?? '', /answer = 42/);
      const { store: again, transcript } = await f.reopenAndCheck();
      assert.deepEqual(transcript.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
      assert.equal(transcript[2].meta?.isError, true, 'the invalid-arguments result is marked as an error');
      assert.equal(transcript[1].toolCalls?.[0].arguments, raw, 'the stored call keeps the raw arguments');
      assert.equal(transcript[5].content, 'The answer is 42.');
      await f.resume(again, 2);
    });

    for (const [label, usage] of [
      ['missing (no usage field at all)', 'absent'],
      ['null', null],
    ] as const) {
      it(`usage ${label}: the turn completes and the ledger falls back to the estimate`, async () => {
        const { agent, events, contextSession: session } = await f.begin();
        f.server.enqueue(
          { type: 'reply', parts: [{ text: 'Reading.' }, { toolCall: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } }], usage },
          { type: 'reply', parts: [{ text: 'The answer is 42.' }], usage },
        );
        assert.equal(await agent.send(FIRST_PROMPT), 'end_turn');
        assert.deepEqual(errorsOf(events), []);
        const recorded = events.flatMap((e) => (e.type === 'usage' ? [e.record] : []));
        assert.equal(recorded.length, 2);
        for (const r of recorded) {
          assert.equal(r.reportedInputTokens, undefined, 'nothing reported');
          assert.equal(r.reportedOutputTokens, undefined);
          assert.ok(r.estimatedInputTokens > 0, 'the estimate is recorded instead');
        }
        assert.equal(session.measure().basis, 'estimate', 'the budget is based on the estimate');
        assert.equal(session.calibration.view().samples, 0, 'calibration learned nothing from a missing report');
        const { store: again } = await f.reopenAndCheck();
        const stored = await again.listRequestUsage(f.sessionId);
        assert.deepEqual(
          stored.map((u) => [u.requestIndex, u.reportedInputTokens, u.estimatedInputTokens > 0]),
          [
            [0, undefined, true],
            [1, undefined, true],
          ],
          'the ledger on disk says the estimate was all there was',
        );
        await f.resume(again, 1);
      });
    }
  });
}
