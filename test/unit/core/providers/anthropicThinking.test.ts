import { strict as assert } from 'assert';
import { anthropicBodyBytes } from '../../../../src/core/providers/anthropic/anthropicBodyBytes';
import { toAnthropicBody } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { keepsEarlierThinking, thinkingBudget, thinkingForm, thinkingReserve } from '../../../../src/core/providers/anthropic/anthropicThinking';
import { anthropicRequestProblem } from '../../../fakes/anthropicServer';
import { message, request, toolCall } from './harness';

describe('Anthropic thinking on the wire', () => {
  it('asks each model family for thinking the way it takes it: adaptive with effort, a fixed budget, or not at all', () => {
    assert.equal(thinkingForm('claude-opus-4-6'), 'adaptive');
    assert.equal(thinkingForm('claude-sonnet-4-6'), 'adaptive');
    assert.equal(thinkingForm('claude-opus-4-7'), 'adaptive');
    assert.equal(thinkingForm('claude-sonnet-5'), 'adaptive');
    assert.equal(thinkingForm('claude-fable-5'), 'adaptive');
    assert.equal(thinkingForm('claude-sonnet-4-5-20250929'), 'budget');
    assert.equal(thinkingForm('claude-opus-4-5-20251101'), 'budget');
    assert.equal(thinkingForm('claude-haiku-4-5-20251001'), 'budget');
    assert.equal(thinkingForm('claude-sonnet-4-20250514'), 'budget');
    assert.equal(thinkingForm('claude-3-7-sonnet-20250219'), 'budget');
    assert.equal(thinkingForm('claude-3-5-haiku-20241022'), 'none');
    assert.equal(thinkingForm('gpt-4o'), 'none');

    const adaptive = toAnthropicBody(request(undefined, { model: 'claude-opus-4-6', reasoning: { effort: 'medium' }, temperature: 0.2 })) as any;
    assert.deepEqual(adaptive.thinking, { type: 'adaptive' });
    assert.deepEqual(adaptive.output_config, { effort: 'medium' });
    assert.equal(adaptive.temperature, undefined, 'temperature is not allowed with thinking');

    const budget = toAnthropicBody(request(undefined, { model: 'claude-sonnet-4-5', reasoning: { effort: 'medium' }, maxOutputTokens: 16_384 })) as any;
    assert.deepEqual(budget.thinking, { type: 'enabled', budget_tokens: thinkingBudget('claude-sonnet-4-5', 'medium') });
    assert.ok(budget.thinking.budget_tokens >= 1024 && budget.thinking.budget_tokens < budget.max_tokens);

    const tooSmall = toAnthropicBody(request(undefined, { model: 'claude-sonnet-4-5', reasoning: { effort: 'high' }, maxOutputTokens: 1000, temperature: 0.2 })) as any;
    assert.equal(tooSmall.thinking, undefined, 'no budget of 1,024 fits below max_tokens: thinking stays off');
    assert.equal(tooSmall.temperature, 0.2);

    assert.equal(thinkingReserve('claude-sonnet-4-5', 'high'), thinkingBudget('claude-sonnet-4-5', 'high'), 'a fixed budget is reserved as it is');
    assert.ok(thinkingReserve('claude-opus-4-6', 'high') > 0, 'adaptive thinking gets room too');
    assert.equal(thinkingReserve('claude-3-5-haiku-20241022', 'high'), 0);
    assert.equal(thinkingReserve('claude-opus-4-6', undefined), 0);

    const off = toAnthropicBody(request(undefined, { model: 'claude-opus-4-6' })) as any;
    assert.equal(off.thinking, undefined);
  });

  it('knows which models keep thinking of earlier turns in context', () => {
    assert.equal(keepsEarlierThinking('claude-opus-4-5-20251101'), true);
    assert.equal(keepsEarlierThinking('claude-opus-4-6'), true);
    assert.equal(keepsEarlierThinking('claude-sonnet-5'), true);
    assert.equal(keepsEarlierThinking('claude-sonnet-4-5-20250929'), false);
    assert.equal(keepsEarlierThinking('claude-opus-4-1-20250805'), false);
    assert.equal(keepsEarlierThinking('claude-haiku-4-5-20251001'), false);
  });

  it('sends thinking blocks first and unchanged, never with a cache breakpoint, and the cached bytes match the plain body', () => {
    const req = request(
      [
        message({ role: 'user', content: 'Fix it' }),
        message({
          role: 'assistant',
          content: '',
          reasoning: [
            { format: 'anthropic', text: 'Look at the parser.', signature: 'sig-1' },
            { format: 'anthropic', text: '', redactedData: 'opaque==' },
            { format: 'openai-responses', text: 'not for this wire', encryptedContent: 'x' },
          ],
          toolCalls: [toolCall('call_1', 'read_file', { path: 'a' })],
        }),
        message({ role: 'tool', content: 'file a', toolCallId: 'call_1' }),
        message({ role: 'assistant', content: '', reasoning: [{ format: 'anthropic', text: 'Only thinking.', signature: 'sig-2' }] }),
      ],
      { model: 'claude-sonnet-4-5', reasoning: { effort: 'low' }, maxOutputTokens: 8192 },
    );
    const body = toAnthropicBody(req) as any;
    assert.equal(anthropicRequestProblem(body), undefined);
    assert.deepEqual(body.messages[1].content.slice(0, 2), [
      { type: 'thinking', thinking: 'Look at the parser.', signature: 'sig-1' },
      { type: 'redacted_thinking', data: 'opaque==' },
    ]);
    assert.equal(body.messages[1].content[2].type, 'tool_use');
    for (const m of body.messages) for (const b of m.content) if (b.type === 'thinking' || b.type === 'redacted_thinking') assert.equal(b.cache_control, undefined);
    assert.equal(new TextDecoder().decode(anthropicBodyBytes(req)), JSON.stringify(body));
  });
});
