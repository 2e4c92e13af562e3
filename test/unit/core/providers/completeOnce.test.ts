import { strict as assert } from 'assert';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { completeOnce } from '../../../../src/core/providers/completeOnce';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { request } from './harness';

describe('completeOnce', () => {
  it('runs a request to the end with each HTTP provider and gathers its text, calls and usage', async () => {
    const anthropic = await new FakeAnthropicServer({ apiKey: 'sk-ant-k-000000' }).start();
    const openai = await new FakeOpenAIServer().start();
    try {
      anthropic.enqueue({ type: 'reply', parts: [{ text: 'Summary: ' }, { text: 'all good.' }], usage: { input: 100, output: 9, cacheRead: 50 } });
      const a = createAnthropicProvider({ apiKey: 'sk-ant-k-000000', baseUrl: anthropic.url });
      assert.equal(a.id, 'anthropic');
      assert.deepEqual(await completeOnce(a, request()), {
        text: 'Summary: all good.',
        calls: [],
        usage: { inputTokens: 150, outputTokens: 9, cacheReadTokens: 50, cacheWriteTokens: 0 },
        stopReason: 'end_turn',
      });

      openai.enqueue({ type: 'reply', parts: [{ toolCall: { id: 'call_1', name: 'read_file', arguments: '{"path":"x"}' } }] });
      const o = createOpenAIProvider({ id: 'openai-compatible', baseUrl: openai.url });
      assert.equal(o.id, 'openai-compatible');
      const result = await completeOnce(o, request());
      assert.deepEqual(result.calls, [{ id: 'call_1', name: 'read_file', arguments: '{"path":"x"}' }]);
      assert.equal(result.stopReason, 'tool_use');
    } finally {
      await anthropic.close();
      await openai.close();
    }
  });
});
