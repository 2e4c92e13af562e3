/**
 * A reply whose unsigned thinking runs past what Tally keeps (DeepSeek's or vLLM's
 * `reasoning_content`): the thinking up to the limit is kept and passed on, the rest is read and
 * counted but left out, and the reply's answer and tool calls arrive whole, without an error. The
 * kept block says how much was left out. Over real HTTP, in the OpenAI-compatible wire format.
 */
import { strict as assert } from 'assert';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { ReplyLimits } from '../../../../src/core/providers/replyLimits';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { ofType, request, run, textOf } from './harness';

const chunk = (delta: unknown, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const LIMITS: Partial<ReplyLimits> = { thinkingChars: 200_000, thinkingReadChars: 1_000_000 };

describe('thinking past the limit for one reply, unsigned', () => {
  let server: FakeOpenAIServer;
  beforeEach(async () => {
    server = await new FakeOpenAIServer().start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('keeps the thinking up to the limit, says how much was left out, and keeps the answer and the tool call', async () => {
    const piece = 'The offset is counted twice. '.repeat(100).slice(0, 2_000);
    // 300,000 characters of thinking, then a tool call and an answer.
    const thinking = Array.from({ length: 150 }, () => chunk({ reasoning_content: piece }));
    server.enqueue({
      type: 'raw',
      chunks: [
        chunk({ role: 'assistant', content: '' }),
        ...thinking,
        chunk({ content: 'The fix is in the second branch.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    const { events, error } = await run(createOpenAIProvider({ baseUrl: server.url, limits: LIMITS }), request());
    assert.equal(error, undefined, error?.message);
    const streamed = ofType(events, 'reasoning_delta').map((e) => e.text).join('');
    assert.equal(streamed, piece.repeat(100), 'the thinking up to the limit is passed on as it streams, and nothing after');
    const [block] = ofType(events, 'reasoning').map((e) => e.block);
    assert.deepEqual(block, { format: 'openai-chat', text: piece.repeat(100), cutChars: 100_000 });
    assert.equal(textOf(events), 'The fix is in the second branch.');
    assert.deepEqual(ofType(events, 'tool_call').map((e) => e.call), [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.ts"}' }]);
    assert.deepEqual(events.at(-1), { type: 'done', stopReason: 'tool_use' });
  });

  it('a reply within the limit keeps its block as it came', async () => {
    server.enqueue({ type: 'raw', chunks: [chunk({ reasoning_content: 'Short thought.' }), chunk({ content: 'Answer.' }), chunk({}, 'stop'), 'data: [DONE]\n\n'] });
    const { events, error } = await run(createOpenAIProvider({ baseUrl: server.url, limits: LIMITS }), request());
    assert.equal(error, undefined);
    assert.deepEqual(ofType(events, 'reasoning').map((e) => e.block), [{ format: 'openai-chat', text: 'Short thought.' }]);
  });

  it('a reply that arrives faster than it is handled gives the event loop a turn every 256 KB of it', async () => {
    const piece = 'Looking at the parser. '.repeat(100).slice(0, 2_048);
    // 4 MB of thinking and 1 MB of answer, sent at once.
    server.enqueue({ type: 'raw', chunks: [...Array.from({ length: 2048 }, () => chunk({ reasoning_content: piece })), ...Array.from({ length: 512 }, () => chunk({ content: piece })), chunk({}, 'stop'), 'data: [DONE]\n\n'] });
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    const provider = createOpenAIProvider({ baseUrl: server.url });
    let chars = 0;
    let turnsAtFirstEvent: number | undefined;
    for await (const event of provider.stream(request())) {
      if (turnsAtFirstEvent === undefined) {
        turnsAtFirstEvent = turns;
        setImmediate(tick);
      }
      if (event.type === 'text' || event.type === 'reasoning_delta') chars += event.text.length;
    }
    running = false;
    assert.equal(chars, 2560 * 2_048);
    assert.ok(turns >= Math.floor(chars / (256 * 1024)) - 1, `${turns} turns of the event loop while ${chars} characters were handled`);
  });
});
