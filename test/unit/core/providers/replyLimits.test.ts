/**
 * A model server cannot hold a reply open for ever or fill the heap: every HTTP provider stops a
 * reply at the limit it passes (one event's size, the text, the thinking, the tool calls, the
 * reply's time), with an error naming that limit, and closes the connection. The servers are real
 * local HTTP servers flooding in each provider's wire format; the limits are given small here.
 */
import { strict as assert } from 'assert';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { createOpenAIResponsesProvider } from '../../../../src/core/providers/openai/openaiResponses';
import { DEFAULT_REPLY_LIMITS, withReplyLimits, type ReplyLimits } from '../../../../src/core/providers/replyLimits';
import type { ChatProvider, ProviderEvent } from '../../../../src/core/providers/types';
import { EndlessStreamServer, type EndlessStep, type EndlessWire } from '../../../fakes/endlessStreamServer';
import { request, run, textOf } from './harness';

const SMALL: Partial<ReplyLimits> = { eventChars: 64 * 1024, textChars: 200_000, thinkingChars: 200_000, thinkingReadChars: 400_000, toolCallChars: 200_000, replyMs: 60_000 };

function providerFor(wire: EndlessWire, server: EndlessStreamServer, limits: Partial<ReplyLimits>): ChatProvider {
  const retry = { maxAttempts: 1 };
  if (wire === 'anthropic') return createAnthropicProvider({ apiKey: 'sk-ant-limits', baseUrl: server.baseUrl, retry, limits });
  if (wire === 'openai-chat') return createOpenAIProvider({ id: 'openai-compatible', baseUrl: server.baseUrl, retry, limits });
  return createOpenAIResponsesProvider({ baseUrl: server.baseUrl, label: 'Responses gateway', retry, limits });
}

const CASES: Array<{ step: EndlessStep; named: RegExp; limits?: Partial<ReplyLimits>; wires?: EndlessWire[] }> = [
  { step: 'comments', named: /the reply took longer than 1.5 s, Tally's limit for one reply/, limits: { replyMs: 1500 } },
  { step: 'unended event', named: /one event of the stream passed 65,536 characters, Tally's limit for one reply/ },
  { step: 'unended line', named: /one event of the stream passed 65,536 characters/ },
  { step: 'text', named: /the reply's text passed 200,000 characters, Tally's limit for one reply/ },
  // Signed thinking is kept whole or not at all; other thinking is read on past what is kept, up to its own limit.
  { step: 'thinking', named: /the reply's thinking passed 200,000 characters, Tally's limit for one reply/, wires: ['anthropic'] },
  { step: 'thinking', named: /the reply's thinking passed 400,000 characters, Tally's limit for one reply/, wires: ['openai-chat', 'openai-responses'] },
  { step: 'tool arguments', named: /the reply's tool calls passed 200,000 characters, Tally's limit for one reply/ },
  { step: 'signature', named: /the reply's thinking passed 200,000 characters/, wires: ['anthropic'] },
];

for (const wire of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
  describe(`a model server whose reply never ends: ${wire}`, function () {
    // Before the limits these ran until the heap was full or for ever; fail instead of waiting.
    this.timeout(20_000);
    let server: EndlessStreamServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    for (const { step, named, limits, wires } of CASES) {
      if (wires && !wires.includes(wire)) continue;
      it(`${step}: the reply stops at the limit with an error naming it, not retried, and the connection is closed`, async () => {
        server = await new EndlessStreamServer(wire, [step]).start();
        const { error } = await run(providerFor(wire, server, { ...SMALL, ...limits }), request());
        assert.equal(error?.kind, 'reply_limit', error?.message);
        assert.match(error.message, named);
        assert.equal(error.retryable, false);
        assert.equal(server.bodies.length, 1, 'the same request is not sent again');
        await server.left(1);
      });
    }

    it('a reply within the limits is unchanged', async () => {
      server = await new EndlessStreamServer(wire, ['answer']).start();
      const { events, error } = await run(providerFor(wire, server, SMALL), request());
      assert.equal(error, undefined);
      assert.equal(textOf(events), 'ok');
      assert.deepEqual(events.at(-1), { type: 'done', stopReason: 'end_turn' });
    });
  });
}

describe('the default reply limits', () => {
  it('are far above what a model may write in one reply (128K output tokens are about half a million characters), and a reply may take half an hour', () => {
    for (const key of ['textChars', 'thinkingChars', 'toolCallChars'] as const) assert.ok(DEFAULT_REPLY_LIMITS[key] >= 4 * 1024 * 1024);
    assert.ok(DEFAULT_REPLY_LIMITS.eventChars >= DEFAULT_REPLY_LIMITS.textChars, 'a Responses completion event repeats the whole text');
    assert.equal(DEFAULT_REPLY_LIMITS.replyMs, 30 * 60 * 1000);
  });
});

describe('a provider that is not HTTP (VS Code language models) held to the limits', () => {
  /** A provider that yields text parts for ever, or nothing until cancelled. */
  function endless(kind: 'text' | 'silent' | 'calls'): ChatProvider {
    return {
      id: 'vscode-lm',
      async *stream(_request, signal): AsyncGenerator<ProviderEvent> {
        if (kind === 'silent') {
          await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
          yield { type: 'done', stopReason: 'end_turn' };
          return;
        }
        for (let i = 0; !signal?.aborted; i++) {
          if (kind === 'text') yield { type: 'text', text: 'x'.repeat(1000) };
          else yield { type: 'tool_call', call: { id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: 'y'.repeat(1000) }) } };
          await Promise.resolve();
        }
      },
    };
  }

  it('endless text is stopped at the text limit, endless whole calls at the tool-call limit', async () => {
    const text = await run(withReplyLimits(endless('text'), 'Copilot (GitHub)', { textChars: 50_000 }), request());
    assert.equal(text.error?.kind, 'reply_limit');
    assert.match(text.error.message, /^Copilot \(GitHub\): reply over a limit: the reply's text passed 50,000 characters/);
    const calls = await run(withReplyLimits(endless('calls'), 'Copilot (GitHub)', { toolCallChars: 50_000 }), request());
    assert.match(calls.error?.message ?? '', /the reply's tool calls passed 50,000 characters/);
  });

  it('a reply that never comes is cancelled at the time limit and says so; the caller\'s Stop stays a cancellation', async () => {
    const late = await run(withReplyLimits(endless('silent'), 'Copilot (GitHub)', { replyMs: 50 }), request());
    assert.equal(late.error?.kind, 'reply_limit');
    assert.match(late.error.message, /the reply took longer than 50 ms/);
    const stop = new AbortController();
    const stopped = run(withReplyLimits(endless('silent'), 'Copilot (GitHub)', { replyMs: 60_000 }), request(), stop.signal);
    stop.abort();
    const outcome = await stopped;
    assert.notEqual(outcome.error?.kind, 'reply_limit');
  });
});
