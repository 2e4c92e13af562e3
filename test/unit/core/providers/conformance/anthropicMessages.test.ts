/**
 * Anthropic Messages, replayed from real responses (see recordings/anthropic-messages/README.md):
 * what Tally decodes from each must be what the recording holds, and what it sends back on the next
 * request must follow the API's rules.
 */
import { strict as assert } from 'assert';
import { anthropicFacts } from './recordingFacts';
import { ANTHROPIC_MESSAGES as WIRE, assistantMessage, recordedRequest, replay, requestFor, toolResult, userMessage } from './replay';

const usageOf = (facts: ReturnType<typeof anthropicFacts>) => ({
  inputTokens: facts.usage.input + facts.usage.cacheRead + facts.usage.cacheWrite,
  outputTokens: facts.usage.output,
  cacheReadTokens: facts.usage.cacheRead,
  cacheWriteTokens: facts.usage.cacheWrite,
  ...(facts.usage.thinking !== undefined ? { reasoningTokens: facts.usage.thinking } : {}),
});

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'cache_control').map(([k, v]) => [k, withoutCacheControl(v)]));
  return value;
}

describe('conformance: Anthropic Messages recordings', () => {
  it('plain text (vercel/ai anthropic-text): text, usage and end_turn', async () => {
    const facts = anthropicFacts(WIRE, 'text.chunks.txt');
    const r = await replay(WIRE, 'text.chunks.txt', requestFor('claude-sonnet-4-5-20250929', [userMessage('Hello!')]));
    assert.equal(r.error, undefined);
    assert.equal(r.text, facts.text);
    assert.ok(r.text.startsWith('Hello! I'));
    assert.deepEqual(r.usage, usageOf(facts));
    assert.equal(r.stopReason, 'end_turn');
  });

  it('a refusal (vercel/ai anthropic-refusal) ends as a refusal, not as a normal answer', async () => {
    const r = await replay(WIRE, 'refusal.chunks.txt', requestFor('claude-fable-5', [userMessage('…')]));
    assert.equal(r.error, undefined);
    assert.equal(r.text, '');
    assert.equal(r.stopReason, 'refusal');
    assert.deepEqual(r.usage, usageOf(anthropicFacts(WIRE, 'refusal.chunks.txt')));
  });

  it('a stop sequence (simonw/llm-anthropic) ends the turn normally with the text before it', async () => {
    const facts = anthropicFacts(WIRE, 'stop-sequence.1.sse');
    const r = await replay(WIRE, 'stop-sequence.1.sse', requestFor('claude-haiku-4-5-20251001', [userMessage('Very short function describing a pelican')]));
    assert.equal(facts.stopReason, 'stop_sequence');
    assert.equal(r.text, facts.text);
    assert.equal(r.stopReason, 'end_turn');
  });

  it('server-side code execution with cache tokens (vercel/ai): no client tool call, cache reads and writes reported', async () => {
    const facts = anthropicFacts(WIRE, 'code-execution-cache.chunks.txt');
    const r = await replay(WIRE, 'code-execution-cache.chunks.txt', requestFor('claude-sonnet-5', [userMessage('Sum the squares of 1..12')]));
    assert.equal(r.error, undefined);
    assert.ok(facts.serverBlocks >= 4, 'the recording holds server tool blocks');
    assert.deepEqual(r.calls, [], 'server_tool_use blocks are run by Anthropic, never by Tally');
    assert.equal(r.text, facts.text);
    assert.deepEqual(r.usage, usageOf(facts));
    assert.ok((r.usage?.cacheReadTokens ?? 0) > 0 && (r.usage?.cacheWriteTokens ?? 0) > 0);
    assert.equal(r.stopReason, 'end_turn');
  });

  it('thinking with a signature (pydantic-ai): streams the thinking, keeps the block with its signature, and sends it back first and unchanged', async () => {
    const facts = anthropicFacts(WIRE, 'thinking.1.sse');
    const user = userMessage('How do I cross the street?');
    const r = await replay(WIRE, 'thinking.1.sse', requestFor('claude-sonnet-4-0', [user], { reasoning: { effort: 'low', budgetTokens: 1024 } }));
    assert.equal(r.error, undefined);
    assert.equal(r.streamedReasoning, facts.thinking[0].text);
    assert.deepEqual(r.reasoning, [{ format: 'anthropic', text: facts.thinking[0].text, signature: facts.thinking[0].signature }]);
    assert.equal(r.text, facts.text);
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual(r.sent.thinking, recordedRequest(WIRE, 'thinking.1.request.json').thinking, 'the same thinking request as the recording client made');

    const next = await replay(WIRE, 'thinking.1.sse', requestFor('claude-sonnet-4-0', [user, assistantMessage(r), userMessage('And at night?')], { reasoning: { effort: 'low', budgetTokens: 1024 } }));
    const assistant = next.sent.messages[1];
    assert.equal(assistant.role, 'assistant');
    assert.deepEqual(assistant.content[0], { type: 'thinking', thinking: facts.thinking[0].text, signature: facts.thinking[0].signature });
    assert.equal(assistant.content[1].type, 'text');
  });

  it('redacted thinking (pydantic-ai): keeps each redacted block’s data and sends it back unchanged', async () => {
    const facts = anthropicFacts(WIRE, 'redacted-thinking.1.sse');
    const user = userMessage('…');
    const r = await replay(WIRE, 'redacted-thinking.1.sse', requestFor('claude-sonnet-4-5-20250929', [user], { reasoning: { effort: 'low', budgetTokens: 1024 } }));
    assert.equal(facts.redacted.length, 2);
    assert.deepEqual(r.reasoning, facts.redacted.map((data) => ({ format: 'anthropic', text: '', redactedData: data })));
    assert.equal(r.streamedReasoning, '', 'nothing readable to show');
    assert.equal(r.text, facts.text);

    const next = await replay(WIRE, 'redacted-thinking.1.sse', requestFor('claude-sonnet-4-5-20250929', [user, assistantMessage(r), userMessage('ok')], { reasoning: { effort: 'low', budgetTokens: 1024 } }));
    assert.deepEqual(next.sent.messages[1].content.slice(0, 2), facts.redacted.map((data) => ({ type: 'redacted_thinking', data })));
  });

  it('thinking in a tool loop (simonw/llm-anthropic): the next request carries the signed thinking first, the call id matched by its result, as the recording client sent it', async () => {
    const facts = anthropicFacts(WIRE, 'thinking-tool-chain.1.sse');
    const first = recordedRequest(WIRE, 'thinking-tool-chain.1.request.json');
    const user = userMessage(first.messages[0].content[0].text);
    const tools = first.tools.map((t: any) => ({ name: t.name, description: t.description, inputSchema: t.input_schema, source: 'builtin' as const }));
    const setup = { tools, maxOutputTokens: first.max_tokens, reasoning: { effort: 'low' as const, budgetTokens: 1024 } };
    const r = await replay(WIRE, 'thinking-tool-chain.1.sse', requestFor(first.model, [user], setup));
    assert.equal(r.error, undefined);
    assert.deepEqual(r.calls, facts.calls);
    assert.equal(r.stopReason, 'tool_use');
    assert.equal(r.usage?.reasoningTokens, 53, 'thinking tokens as the API reported them');
    assert.equal(r.sent.temperature, undefined, 'no temperature with thinking');

    const recordedNext = recordedRequest(WIRE, 'thinking-tool-chain.2.request.json');
    const result = recordedNext.messages[2].content[0].content as string;
    const second = await replay(WIRE, 'thinking-tool-chain.2.sse', requestFor(first.model, [user, assistantMessage(r), toolResult(r.calls[0], result)], setup));
    assert.equal(second.error, undefined);
    // Tally adds its cache breakpoints; everything else is what the recording client sent.
    assert.deepEqual(withoutCacheControl(second.sent.messages), recordedNext.messages);
    assert.equal(second.text, anthropicFacts(WIRE, 'thinking-tool-chain.2.sse').text);
    assert.equal(second.stopReason, 'end_turn');
  });

  it('pause_turn during server-side web search (pydantic-ai): a stop reason of its own, thinking kept, server tools not run by Tally', async () => {
    const facts = anthropicFacts(WIRE, 'pause-turn-web-search.1.sse');
    const r = await replay(WIRE, 'pause-turn-web-search.1.sse', requestFor('claude-sonnet-4-5', [userMessage('Search.')]));
    assert.equal(r.error, undefined);
    assert.equal(facts.stopReason, 'pause_turn');
    assert.equal(r.stopReason, 'pause_turn');
    assert.deepEqual(r.calls, []);
    assert.equal(r.text, facts.text);
    assert.deepEqual(r.reasoning.map((b) => b.signature), facts.thinking.map((t) => t.signature));
    assert.deepEqual(r.usage, usageOf(facts));
  });
});
