/**
 * OpenAI Chat Completions, replayed from real responses (see recordings/openai-chat/README.md).
 */
import { strict as assert } from 'assert';
import { openaiChatFacts } from './recordingFacts';
import { OPENAI_CHAT as WIRE, assistantMessage, recordedRequest, replay, requestFor, toolResult, userMessage } from './replay';

describe('conformance: OpenAI Chat Completions recordings', () => {
  it('plain text without a [DONE] line (vercel/ai openai-text): text, usage with cached tokens, end_turn', async () => {
    const facts = openaiChatFacts(WIRE, 'text.chunks.txt');
    const r = await replay(WIRE, 'text.chunks.txt', requestFor('gpt-4.1-nano', [userMessage('Write a story.')]));
    assert.equal(r.error, undefined);
    assert.equal(r.text, facts.text);
    assert.ok(r.text.length > 500);
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual(r.usage, { inputTokens: facts.usage.prompt_tokens, outputTokens: facts.usage.completion_tokens, cacheReadTokens: facts.usage.prompt_tokens_details.cached_tokens, reasoningTokens: facts.usage.completion_tokens_details.reasoning_tokens });
  });

  it('parallel tool calls with include_usage (Mirascope): both calls by index, then the next request answers each call id', async () => {
    const facts = openaiChatFacts(WIRE, 'parallel-tool-calls.1.sse');
    const first = recordedRequest(WIRE, 'parallel-tool-calls.1.request.json');
    const system = first.messages[0];
    const user = userMessage(first.messages[1].content);
    const tools = first.tools.map((t: any) => ({ name: t.function.name, description: t.function.description, inputSchema: t.function.parameters, source: 'builtin' as const }));
    const setup = { system: [{ text: system.content }], tools };
    const r = await replay(WIRE, 'parallel-tool-calls.1.sse', requestFor('gpt-4o', [user], setup));
    assert.equal(r.error, undefined);
    assert.equal(facts.calls.length, 2);
    assert.deepEqual(r.calls, facts.calls);
    assert.equal(r.stopReason, 'tool_use');
    assert.deepEqual(r.usage, { inputTokens: facts.usage.prompt_tokens, outputTokens: facts.usage.completion_tokens, cacheReadTokens: 0, reasoningTokens: facts.usage.completion_tokens_details.reasoning_tokens });
    assert.equal(r.sent.stream_options?.include_usage, true);

    const recordedNext = recordedRequest(WIRE, 'parallel-tool-calls.2.request.json');
    const results = recordedNext.messages.filter((m: any) => m.role === 'tool');
    const messages = [user, assistantMessage(r), ...r.calls.map((call, i) => toolResult(call, results[i].content))];
    const second = await replay(WIRE, 'parallel-tool-calls.2.sse', requestFor('gpt-4o', messages, setup));
    assert.equal(second.error, undefined);
    const sentCalls = second.sent.messages.find((m: any) => m.role === 'assistant').tool_calls.map((c: any) => c.id);
    const sentAnswers = second.sent.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id);
    assert.deepEqual(sentCalls, facts.calls.map((c) => c.id));
    assert.deepEqual(sentAnswers, results.map((m: any) => m.tool_call_id), 'each call answered, in the order the recording client did');
    assert.equal(second.text, openaiChatFacts(WIRE, 'parallel-tool-calls.2.sse').text);
    assert.equal(second.stopReason, 'end_turn');
  });
});
