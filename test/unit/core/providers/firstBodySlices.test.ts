/**
 * A conversation's first body (the first request after a long session was opened, forked or
 * rewound) has every message to serialize: at 10,000 messages 2.6 MB of JSON, which built in one
 * go held the extension host for a fifth of a second. The messages are readied in slices with turns
 * of the event loop between them before the body is assembled; the next body of the same
 * conversation has its messages ready and goes out without waiting. Counted in event-loop turns
 * before the request reaches fetch, not timed.
 */
import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { MessageWireCache } from '../../../../src/core/providers/http/bodyBytes';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { turnTicker } from '../../../support/eventLoopTurns';
import { message, request, run, toolCall } from './harness';

/** A long agent session: a user request, then assistant steps each with a command and its log. */
function longSession(count: number): Message[] {
  const messages: Message[] = [message({ role: 'user', content: 'Fix the failing build and run the tests.' })];
  while (messages.length < count) {
    const call = toolCall(`call_${messages.length}`, 'run_command', { command: `npm test -- --grep case${messages.length}` });
    messages.push(message({ role: 'assistant', content: `Step ${messages.length}: checking the next module.`, toolCalls: [call] }));
    messages.push(message({ role: 'tool', content: `PASS test/case${messages.length}.test.ts\n`.repeat(4), toolCallId: call.id, toolName: 'run_command' }));
  }
  messages.push(message({ role: 'user', content: 'And now?' }));
  return messages;
}

/** Counts the event loop's turns from now; `fetch` records the count at each call. */
function turnCounter(): { fetch: typeof fetch; seen: number[]; now: () => number; stop: () => void } {
  const ticker = turnTicker();
  const seen: number[] = [];
  const counted = (input: string | URL | Request, init?: RequestInit) => {
    seen.push(ticker.now());
    return fetch(input, init);
  };
  return { fetch: counted as typeof fetch, seen, now: ticker.now, stop: ticker.stop };
}

const PROVIDERS: Array<{ name: string; start: () => Promise<FakeOpenAIServer | FakeAnthropicServer>; make: (url: string, f: typeof fetch) => ChatProvider }> = [
  { name: 'OpenAI-compatible', start: () => new FakeOpenAIServer().start(), make: (url, f) => createOpenAIProvider({ baseUrl: url, fetch: f }) },
  { name: 'Anthropic', start: () => new FakeAnthropicServer().start(), make: (url, f) => createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: url, fetch: f }) },
];

for (const provider of PROVIDERS) {
  describe(`${provider.name}: the first body of a long conversation`, function () {
    this.timeout(60_000);

    it('is readied over many turns of the event loop, the next body of the conversation over none, and both carry every message', async () => {
      const server = await provider.start();
      const counter = turnCounter();
      try {
        const chat = provider.make(server.url, counter.fetch);
        const messages = longSession(10_000);
        server.enqueue({ type: 'reply', parts: [{ text: 'Done.' }] });
        const first = await run(chat, request(messages));
        assert.equal(first.error, undefined);
        const turnsAtFirst = counter.seen[0];
        // 2.6 MB of messages in slices of about 256 KB.
        assert.ok(turnsAtFirst >= 6, `the first body was built over ${turnsAtFirst} turns of the event loop`);

        messages.push(message({ role: 'assistant', content: 'Done.' }), message({ role: 'user', content: 'Thanks, once more.' }));
        server.enqueue({ type: 'reply', parts: [{ text: 'Again.' }] });
        const startedAt = counter.now();
        const second = await run(chat, request(messages));
        assert.equal(second.error, undefined);
        const turnsToSecond = counter.seen[1] - startedAt;
        assert.ok(turnsToSecond <= 1, `the next body waited ${turnsToSecond} turns`);

        const sent = server.requests.map((r) => (r.body as { messages: unknown[] }).messages.length);
        // Anthropic merges a step's tool result into the next user turn; OpenAI sends each message.
        assert.ok(sent[0] > 5_000 && sent[1] > sent[0], `messages sent: ${sent.join(', ')}`);
      } finally {
        counter.stop();
        await server.close();
      }
    });
  });
}

describe("a wire format's message cache, readied in slices", () => {
  it('builds every message once, no slice holding more than about its share of characters', async () => {
    const built: number[] = [];
    const ticker = turnTicker();
    const cache = new MessageWireCache((m: Message) => {
      built.push(ticker.now());
      return m.content.length;
    });
    const messages = Array.from({ length: 1_000 }, (_, i) => message({ role: 'user', content: 'x'.repeat(1_000 + (i % 7)) }));
    await cache.warm(messages, 16 * 1024);
    ticker.stop();
    assert.equal(built.length, 1_000, 'each message built once');
    const perSlice = new Map<number, number>();
    for (const s of built) perSlice.set(s, (perSlice.get(s) ?? 0) + 1);
    // 16 KB slices of messages of about 1.1 KB each (content and fields): at most 15 a slice.
    assert.ok(Math.max(...perSlice.values()) <= 15, `most messages in one slice: ${Math.max(...perSlice.values())}`);
    assert.ok(perSlice.size >= 60, `${perSlice.size} slices`);
    await cache.warm(messages, 16 * 1024);
    assert.equal(built.length, 1_000, 'readied again, nothing is built again');
  });
});
