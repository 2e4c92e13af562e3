import { strict as assert } from 'assert';
import { normalizeModelId, resolveModel } from '../../../../src/core/providers/models/modelRegistry';

describe('model registry', () => {
  it('knows Claude 4.x by alias, dated id, Bedrock and Vertex spellings', () => {
    for (const id of ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'anthropic.claude-sonnet-4-5-20250929-v1:0', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5@20250929', 'claude-sonnet-4-20250514']) {
      const m = resolveModel(id);
      assert.equal(m.known, true, id);
      assert.equal(m.contextWindow, 200_000, id);
      assert.equal(m.maxOutputTokens, 64_000, id);
      assert.equal(m.caching, 'explicit', id);
      assert.equal(m.supportsPromptCaching, true, id);
    }
    assert.equal(resolveModel('claude-opus-4-1-20250805').maxOutputTokens, 32_000);
    assert.equal(resolveModel('claude-opus-4-5-20251101').maxOutputTokens, 64_000);
    assert.equal(resolveModel('claude-haiku-4-5').maxOutputTokens, 64_000);
    assert.equal(resolveModel('claude-3-5-haiku-latest').maxOutputTokens, 8_192);
  });

  it('knows OpenAI models, with cl100k_base for the older ones', () => {
    const expect: Array<[string, number, number, string]> = [
      ['gpt-4o-2024-08-06', 128_000, 16_384, 'o200k_base'],
      ['gpt-4o-mini', 128_000, 16_384, 'o200k_base'],
      ['gpt-4.1-mini', 1_047_576, 32_768, 'o200k_base'],
      ['gpt-5', 400_000, 128_000, 'o200k_base'],
      ['gpt-5-mini-2025-08-07', 400_000, 128_000, 'o200k_base'],
      ['o3-mini', 200_000, 100_000, 'o200k_base'],
      ['o4-mini', 200_000, 100_000, 'o200k_base'],
      ['o1-mini', 128_000, 65_536, 'o200k_base'],
      ['gpt-4-turbo-2024-04-09', 128_000, 4_096, 'cl100k_base'],
      ['gpt-4-0613', 8_192, 8_192, 'cl100k_base'],
      ['gpt-3.5-turbo-0125', 16_385, 4_096, 'cl100k_base'],
    ];
    for (const [id, window, output, encoding] of expect) {
      const m = resolveModel(id);
      assert.deepEqual([m.known, m.contextWindow, m.maxOutputTokens, m.encoding], [true, window, output, encoding], id);
    }
    assert.equal(resolveModel('gpt-4o').caching, 'automatic');
    assert.equal(resolveModel('gpt-3.5-turbo').supportsPromptCaching, false);
  });

  it('knows common local models by Ollama, LM Studio and Hugging Face names', () => {
    assert.equal(resolveModel('qwen2.5-coder:14b').contextWindow, 32_768);
    assert.equal(resolveModel('Qwen/Qwen2.5-Coder-32B-Instruct').contextWindow, 32_768);
    assert.equal(resolveModel('llama3.1:8b').contextWindow, 131_072);
    assert.equal(resolveModel('meta-llama/Llama-3.3-70B-Instruct').contextWindow, 131_072);
    assert.equal(resolveModel('gpt-oss:20b').family, 'local:gpt-oss');
    assert.equal(resolveModel('qwen3-coder:30b').contextWindow, 262_144);
    assert.equal(resolveModel('qwen2.5-coder:14b').supportsPromptCaching, false);
  });

  it('falls back to 128K for an unknown model and says so', () => {
    const m = resolveModel('my-finetune-v3');
    assert.equal(m.known, false);
    assert.equal(m.contextWindow, 128_000);
    assert.equal(m.maxOutputTokens, 8_192);
    assert.equal(m.encoding, 'o200k_base');
  });

  it('lets settings override the window, output and tokenizer', () => {
    const m = resolveModel('qwen2.5-coder:7b', { contextWindow: 8192, maxOutputTokens: 2048, encoding: 'cl100k_base' });
    assert.deepEqual([m.contextWindow, m.maxOutputTokens, m.defaultOutputReserve, m.encoding], [8192, 2048, 2048, 'cl100k_base']);
    const unknown = resolveModel('custom', { contextWindow: 32_000 });
    assert.equal(unknown.known, true, 'a window from settings is not a fallback');
    assert.equal(resolveModel('gpt-4o', { contextWindow: 0 }).contextWindow, 128_000, 'invalid overrides are ignored');
  });

  it('reserves a sensible share for output by default, never more than half the window', () => {
    assert.equal(resolveModel('claude-sonnet-4-5').defaultOutputReserve, 16_384);
    assert.equal(resolveModel('gpt-5').defaultOutputReserve, 32_000);
    assert.equal(resolveModel('gpt-4').defaultOutputReserve, 4_096);
    assert.equal(resolveModel('claude-sonnet-4-5', { contextWindow: 20_000 }).defaultOutputReserve, 10_000);
  });

  it('normalizes ids', () => {
    assert.equal(normalizeModelId(' Anthropic/Claude-Sonnet-4-5 '), 'claude-sonnet-4-5');
    assert.equal(normalizeModelId('qwen2.5-coder:14b-instruct-q4_K_M'), 'qwen2.5-coder');
  });
});
