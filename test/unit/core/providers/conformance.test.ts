/**
 * One suite, run against every HTTP provider over real HTTP with a local fake server that speaks
 * its wire format: streaming, tool calls, usage, the real error bodies, and the faults of the
 * fault suite (429 with retry-after, 500 storm, reset mid-stream, stall, malformed SSE, invalid
 * tool arguments, missing usage, abort).
 */
import { strict as assert } from 'assert';
import type { ScriptedServer } from '../../../fakes/scriptedServer';
import { anthropicView, openaiView, type BodyView } from './bodyView';
import { HARNESSES, deepIncludes, message, ofType, recordingSleep, request, run, textOf, toolCall } from './harness';

const VIEWS: Record<string, (body: any) => BodyView> = { 'Anthropic Messages': anthropicView, 'OpenAI Chat Completions': openaiView };

for (const h of HARNESSES) {
  describe(`provider conformance: ${h.name}`, () => {
    let server: ScriptedServer;
    const view = (body: any) => VIEWS[h.name](body);

    beforeEach(async () => {
      server = await h.startServer();
    });
    afterEach(async () => {
      await server.close();
    });

    it('streams text in order and ends with usage and done', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'Hello! I read the parser and found the bug on line 3.' }] });
      const { events, error } = await run(h.provider(server), request());
      assert.equal(error, undefined);
      assert.equal(textOf(events), 'Hello! I read the parser and found the bug on line 3.');
      assert.ok(ofType(events, 'text').length > 3, 'text should arrive in several deltas');
      assert.deepEqual(events.slice(-2).map((e) => e.type), ['usage', 'done']);
      assert.deepEqual(events[events.length - 1], { type: 'done', stopReason: 'end_turn' });
    });

    it('keeps text intact when events are cut every 3 bytes with CRLF line endings, comments and multibyte characters', async () => {
      const text = 'naïve — 世界 🚀 done';
      server.enqueue({ type: 'reply', parts: [{ text }], splitBytes: 3, lineEnding: '\r\n', comments: true, chunkChars: 2 });
      const { events, error } = await run(h.provider(server), request());
      assert.equal(error, undefined);
      assert.equal(textOf(events), text);
    });

    it('streams a tool call: start, argument deltas, then the complete call once the message ends', async () => {
      const args = '{"path":"src/parser.ts","limit":40}';
      server.enqueue({ type: 'reply', parts: [{ text: 'Let me look.' }, { toolCall: { id: 'call_A1', name: 'read_file', arguments: args } }] });
      const { events, error } = await run(h.provider(server), request());
      assert.equal(error, undefined);
      const [start] = ofType(events, 'tool_call_start');
      assert.deepEqual(start, { type: 'tool_call_start', index: 0, id: 'call_A1', name: 'read_file' });
      assert.equal(ofType(events, 'tool_call_delta').map((d) => d.argumentsDelta).join(''), args);
      assert.ok(ofType(events, 'tool_call_delta').length > 1, 'arguments should stream in fragments');
      assert.deepEqual(ofType(events, 'tool_call').map((e) => e.call), [{ id: 'call_A1', name: 'read_file', arguments: args }]);
      const lastDelta = events.map((e) => e.type).lastIndexOf('tool_call_delta');
      assert.ok(events.findIndex((e) => e.type === 'tool_call') > lastDelta);
      assert.deepEqual(events[events.length - 1], { type: 'done', stopReason: 'tool_use' });
    });

    it('assembles parallel tool calls by index, in order', async () => {
      server.enqueue({
        type: 'reply',
        parts: [
          { toolCall: { id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' } },
          { toolCall: { id: 'call_2', name: 'search_text', arguments: '{"query":"parse(","glob":"src/**"}' } },
        ],
      });
      const { events, error } = await run(h.provider(server), request());
      assert.equal(error, undefined);
      assert.deepEqual(ofType(events, 'tool_call_start').map((s) => [s.index, s.id, s.name]), [
        [0, 'call_1', 'read_file'],
        [1, 'call_2', 'search_text'],
      ]);
      assert.deepEqual(ofType(events, 'tool_call').map((e) => e.call), [
        { id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' },
        { id: 'call_2', name: 'search_text', arguments: '{"query":"parse(","glob":"src/**"}' },
      ]);
      for (const index of [0, 1]) {
        const joined = ofType(events, 'tool_call_delta').filter((d) => d.index === index).map((d) => d.argumentsDelta).join('');
        assert.equal(joined, ofType(events, 'tool_call')[index].call.arguments);
      }
    });

    it('reports usage including cache read and write tokens', async () => {
      const usage = { input: 1200, output: 80, cacheRead: 9000, cacheWrite: 300 };
      server.enqueue({ type: 'reply', parts: [{ text: 'ok' }], usage });
      const { events } = await run(h.provider(server), request());
      assert.deepEqual(ofType(events, 'usage').map((e) => e.usage), [h.expectedUsage(usage)]);
    });

    it('gives no usage event, and no crash, when the server reports none', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'no usage here' }], usage: null });
      const { events, error } = await run(h.provider(server), request());
      assert.equal(error, undefined);
      assert.equal(ofType(events, 'usage').length, 0);
      assert.equal(textOf(events), 'no usage here');
      assert.deepEqual(events[events.length - 1], { type: 'done', stopReason: 'end_turn' });
    });

    it("turns the provider's prompt-too-long error into kind context_too_long, without retrying", async () => {
      server.enqueue({ type: 'context_too_long' }, { type: 'reply', parts: [{ text: 'never sent' }] });
      const { sleep, delays } = recordingSleep();
      const { error } = await run(h.provider(server, { retry: { sleep } }), request());
      assert.equal(error?.kind, 'context_too_long');
      assert.equal(error?.status, 400);
      assert.equal(error?.retryable, false);
      assert.equal(server.requests.length, 1);
      assert.deepEqual(delays, []);
    });

    it('retries a 429 after the delay given by retry-after, then succeeds', async () => {
      server.enqueue({ type: 'rate_limited', retryAfterSeconds: 3 }, { type: 'reply', parts: [{ text: 'after the wait' }] });
      const { sleep, delays } = recordingSleep();
      const retries: number[] = [];
      const provider = h.provider(server, { retry: { sleep, onRetry: (info) => retries.push(info.attempt) } });
      const { events, error } = await run(provider, request());
      assert.equal(error, undefined);
      assert.deepEqual(delays, [3000]);
      assert.deepEqual(retries, [1]);
      assert.equal(server.requests.length, 2);
      assert.equal(textOf(events), 'after the wait');
    });

    it('gives up on a 500 storm after maxAttempts with kind server, backing off between attempts', async () => {
      for (let i = 0; i < 5; i++) server.enqueue({ type: 'server_error' });
      const { sleep, delays } = recordingSleep();
      const provider = h.provider(server, { retry: { sleep, maxAttempts: 3, baseDelayMs: 1000, random: () => 0.5 } });
      const { error } = await run(provider, request());
      assert.equal(error?.kind, 'server');
      assert.equal(error?.status, 500);
      assert.equal(server.requests.length, 3);
      assert.deepEqual(delays, [750, 1500]);
    });

    it('retries an overloaded server and an in-stream error that came before any output', async () => {
      server.enqueue({ type: 'overloaded' }, { type: 'reply', parts: [{ text: 'x' }], fault: { afterEvents: 1, action: 'error_event' } }, { type: 'reply', parts: [{ text: 'third time' }] });
      const { sleep, delays } = recordingSleep();
      const { events, error } = await run(h.provider(server, { retry: { sleep } }), request());
      assert.equal(error, undefined);
      assert.equal(server.requests.length, 3);
      assert.equal(delays.length, 2);
      assert.equal(textOf(events), 'third time');
    });

    it('surfaces an in-stream error after output started as stream_dropped, not retried', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'partial answer here' }], fault: { afterFirst: 'text', action: 'error_event' } }, { type: 'reply', parts: [{ text: 'unused' }] });
      const { sleep } = recordingSleep();
      const { events, error } = await run(h.provider(server, { retry: { sleep } }), request());
      assert.equal(error?.kind, 'stream_dropped');
      assert.ok(textOf(events).length > 0);
      assert.equal(server.requests.length, 1);
    });

    it('connection reset after a tool call started: stream_dropped, and the cut call never completes', async () => {
      server.enqueue(
        { type: 'reply', parts: [{ text: 'Reading it now.' }, { toolCall: { id: 'call_cut', name: 'read_file', arguments: '{"path":"src/very/long/path/file.ts"}' } }], fault: { afterFirst: 'tool_args', action: 'reset' } },
        { type: 'reply', parts: [{ text: 'must not be requested' }] },
      );
      const { sleep } = recordingSleep();
      const { events, error } = await run(h.provider(server, { retry: { sleep } }), request());
      assert.equal(error?.kind, 'stream_dropped');
      assert.equal(error?.retryable, true);
      assert.equal(ofType(events, 'tool_call_start').length, 1);
      assert.equal(ofType(events, 'tool_call').length, 0, 'no complete tool_call for the cut call');
      assert.equal(ofType(events, 'done').length, 0);
      assert.equal(server.requests.length, 1, 'output had started: no silent retry');
    });

    it('a stream that ends cleanly but early is stream_dropped too', async () => {
      server.enqueue({ type: 'reply', parts: [{ toolCall: { name: 'read_file', arguments: '{"path":"a.ts"}' } }], fault: { afterFirst: 'tool_args', action: 'end' } });
      const { events, error } = await run(h.provider(server, { retry: { maxAttempts: 1 } }), request());
      assert.equal(error?.kind, 'stream_dropped');
      assert.equal(ofType(events, 'tool_call').length, 0);
    });

    it('a connection that breaks before any output is retried and the answer arrives once', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'lost' }], fault: { afterEvents: 1, action: 'close' } }, { type: 'reply', parts: [{ text: 'second try' }] });
      const { sleep, delays } = recordingSleep();
      const { events, error } = await run(h.provider(server, { retry: { sleep } }), request());
      assert.equal(error, undefined);
      assert.equal(textOf(events), 'second try');
      assert.equal(delays.length, 1);
      assert.equal(server.requests.length, 2);
    });

    it('a stream that stalls past the idle timeout ends with kind timeout and closes the connection', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'thinking about it' }], fault: { afterFirst: 'text', action: 'stall' } });
      const { events, error } = await run(h.provider(server, { idleTimeoutMs: 250 }), request());
      assert.equal(error?.kind, 'timeout');
      assert.ok(textOf(events).length > 0);
      await server.clientLeft(server.requests[0]);
      assert.equal(server.requests.length, 1);
    });

    it('headers and then nothing ends with kind timeout after the idle limit and closes the connection', async () => {
      server.enqueue({ type: 'raw', chunks: [], then: 'stall' });
      const { events, error } = await run(h.provider(server, { idleTimeoutMs: 250, retry: { maxAttempts: 1 } }), request());
      assert.equal(error?.kind, 'timeout');
      assert.match(error.message, /stalled for more than/);
      assert.deepEqual(events, []);
      await server.clientLeft(server.requests[0]);
    });

    it('no response headers within timeoutMs ends with kind timeout', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'late' }], delayMs: 2000 });
      const { error } = await run(h.provider(server, { timeoutMs: 200 }), request());
      assert.equal(error?.kind, 'timeout');
    });

    it('malformed SSE data ends with kind malformed', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'some text first' }], fault: { afterFirst: 'text', action: 'malformed' } });
      const { error } = await run(h.provider(server), request());
      assert.equal(error?.kind, 'malformed');
      assert.equal(error?.retryable, false);
    });

    it('a tool call with invalid JSON arguments is delivered with the raw text, and can be sent back', async () => {
      const raw = '{"path": "src/a.ts", "limit": ';
      server.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'call_bad', name: 'read_file', arguments: raw } }] });
      const provider = h.provider(server);
      const first = await run(provider, request());
      assert.equal(first.error, undefined);
      assert.deepEqual(ofType(first.events, 'tool_call').map((e) => e.call), [{ id: 'call_bad', name: 'read_file', arguments: raw }]);

      // The agent answers with a tool error; the history with the bad call must still be accepted.
      server.enqueue({ type: 'reply', parts: [{ text: 'Sorry, retrying with valid JSON.' }] });
      const history = [
        message({ role: 'user', content: 'Read a.ts' }),
        message({ role: 'assistant', content: '', toolCalls: [toolCall('call_bad', 'read_file', raw)] }),
        message({ role: 'tool', content: 'Error: the arguments are not valid JSON', toolCallId: 'call_bad', toolName: 'read_file', meta: { isError: true } }),
      ];
      const second = await run(provider, request(history));
      assert.equal(second.error, undefined, second.error?.message);
      assert.equal(textOf(second.events), 'Sorry, retrying with valid JSON.');
      assert.ok(deepIncludes(server.requests[1].body, raw), 'the raw arguments are kept in the request');
    });

    it('an abort signal cancels a stalled stream promptly and closes the connection', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'streaming forever' }], fault: { afterFirst: 'text', action: 'stall' } });
      const controller = new AbortController();
      const { events, error } = await run(h.provider(server, { idleTimeoutMs: 60_000 }), request(), controller.signal, (e) => {
        if (e.type === 'text') controller.abort();
      });
      assert.equal(error?.kind, 'cancelled');
      assert.equal(ofType(events, 'text').length, 1);
      await server.clientLeft(server.requests[0]);
    });

    it('an abort during a retry wait cancels without waiting it out', async () => {
      server.enqueue({ type: 'rate_limited', retryAfterSeconds: 60 });
      const controller = new AbortController();
      // Aborted once the provider says it will wait (60 s) before sending again.
      const { error } = await run(h.provider(server), request(), controller.signal, (e) => {
        if (e.type === 'retry') queueMicrotask(() => controller.abort());
      });
      assert.equal(error?.kind, 'cancelled');
      assert.equal(server.requests.length, 1);
    });

    it('maps system blocks, cache breakpoints (at most 4), tool calls and their results as the server receives them', async () => {
      server.enqueue({ type: 'reply', parts: [{ text: 'done' }] });
      const history = [
        message({ role: 'user', content: 'Fix the parser.' }),
        message({ role: 'assistant', content: 'Reading two files.', toolCalls: [toolCall('call_a', 'read_file', { path: 'a.ts' }), toolCall('call_b', 'read_file', { path: 'b.ts' })] }),
        message({ role: 'tool', content: 'export const a = 1;', toolCallId: 'call_a', toolName: 'read_file' }),
        message({ role: 'tool', content: 'ENOENT: b.ts', toolCallId: 'call_b', toolName: 'read_file', meta: { isError: true } }),
        message({ role: 'assistant', content: 'b.ts is missing; creating it.' }),
        message({ role: 'user', content: 'Go ahead.' }),
        message({ role: 'user', kind: 'note', content: 'Context: 41% used.' }),
      ];
      const system = [
        { text: 'Base instructions.', cacheBreakpoint: true },
        { text: 'AGENTS.md rules.', cacheBreakpoint: true },
        { text: 'Memories.', cacheBreakpoint: true },
        { text: 'Skills index.', cacheBreakpoint: true },
        { text: 'Scratch notes.' },
      ];
      const { error } = await run(h.provider(server), request(history, { system, maxOutputTokens: 2048 }));
      assert.equal(error, undefined, error?.message);
      const body = view(server.lastBody);
      assert.ok(body.system.startsWith('Base instructions.'));
      assert.ok(body.system.includes('Scratch notes.'));
      assert.ok(body.cacheBreakpoints <= 4);
      assert.deepEqual(body.toolNames, ['read_file']);
      assert.equal(body.maxTokens, 2048);
      const callTurn = body.turns.findIndex((t) => t.callIds.length > 0);
      assert.deepEqual(body.turns[callTurn].callIds, ['call_a', 'call_b']);
      assert.equal(body.turns[callTurn + 1].role, 'results', 'results follow their calls immediately');
      assert.deepEqual(body.turns[callTurn + 1].resultIds, ['call_a', 'call_b']);
      assert.ok(body.turns[body.turns.length - 1].text.includes('Context: 41% used.'));
      assert.equal(server.requests[0].body.stream, true);
    });

    it('sends the API key only in its header, and never shows it in an error', async () => {
      server.enqueue({ type: 'error', status: 401, body: { error: { message: `Incorrect API key provided: ${h.apiKey}.`, type: 'invalid_request_error', code: 'invalid_api_key' } } });
      const { error } = await run(h.provider(server), request());
      assert.equal(error?.kind, 'auth');
      assert.equal(error?.retryable, false);
      for (const text of [error!.message, String(error!.stack), JSON.stringify(error), String(error)]) {
        assert.ok(!text.includes(h.apiKey), `key leaked in: ${text}`);
      }
      assert.ok(!server.requests[0].rawBody.includes(h.apiKey), 'the key is not in the body');
      const headerValues = Object.values(server.requests[0].headers).join(' ');
      assert.ok(headerValues.includes(h.apiKey));
    });

    it('a wrong API key is rejected by the server as auth', async () => {
      const provider = h.provider(server);
      const wrong = h.provider(server, {}, 'sk-wrong-key-000000');
      server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
      const { error } = await run(wrong, request());
      assert.equal(error?.kind, 'auth');
      assert.ok(!error!.message.includes('sk-wrong-key-000000'));
      const good = await run(provider, request());
      assert.equal(good.error, undefined);
    });
  });
}
