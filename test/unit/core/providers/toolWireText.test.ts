/** The tool text the inspector opens is the provider's own wire form of the tool, as the server received it. */
import { strict as assert } from 'assert';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { ToolDefinition } from '../../../../src/core/model/tool';
import { createAnthropicProvider } from '../../../../src/core/providers/anthropic/anthropic';
import { createOpenAIProvider } from '../../../../src/core/providers/openai/openai';
import { createChatProvider } from '../../../../src/core/providers/chatProviderFactory';
import { responsesBodyChunks } from '../../../../src/core/providers/openai/openaiResponsesBody';
import { toolWireText } from '../../../../src/core/providers/toolWireForms';
import type { ChatProvider } from '../../../../src/core/providers/types';
import { SessionPrompt } from '../../../../src/core/prompt/sessionPrompt';
import { withSettings } from '../../../../src/core/settings';
import { FakeAnthropicServer } from '../../../fakes/anthropicServer';
import { FakeOpenAIServer } from '../../../fakes/openaiServer';
import { request, run } from './harness';

const tools: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file "as is" — UTF-8 text.', inputSchema: { properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } }, required: ['path'] }, source: 'builtin' },
  { name: 'github_search', description: 'Search GitHub.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, source: 'mcp', origin: 'MCP: github' },
];

/** The tool texts a session on `provider` records for its requests (what the inspector opens). */
async function recordedToolTexts(provider: ChatProvider): Promise<string[]> {
  const prompt = new SessionPrompt({ counter: getTokenCounter(), settings: withSettings(), tools: () => tools, instructions: async () => undefined, skills: async () => [], toolText: (tool) => toolWireText(provider, tool) });
  const prepared = await prompt.prepare({ effectiveWindow: 200_000, percentUsed: 0.1 });
  return prepared.sections.tools.map((t) => t.text);
}

describe('the tool text the inspector shows is what the provider was sent', () => {
  it('OpenAI-compatible: a function with parameters, byte for byte as in the body the server received', async () => {
    const server = await new FakeOpenAIServer().start();
    try {
      const provider = createOpenAIProvider({ baseUrl: server.url, id: 'openai-compatible' });
      const texts = await recordedToolTexts(provider);
      server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
      const { error } = await run(provider, request(undefined, { tools }));
      assert.equal(error, undefined);
      const body = server.requests[0].rawBody;
      for (const text of texts) assert.ok(body.includes(text), `the body holds ${text}`);
      for (const text of texts) assert.doesNotMatch(text, /input_schema/, 'no Anthropic field');
      assert.deepEqual(JSON.parse(texts[0]), server.requests[0].body.tools[0]);
    } finally {
      await server.close();
    }
  });

  it('Anthropic: name, description and input_schema, byte for byte as in the body the server received', async () => {
    const server = await new FakeAnthropicServer({ apiKey: 'sk-ant-test-key-0123456789' }).start();
    try {
      const provider = createAnthropicProvider({ apiKey: 'sk-ant-test-key-0123456789', baseUrl: server.url });
      const texts = await recordedToolTexts(provider);
      server.enqueue({ type: 'reply', parts: [{ text: 'ok' }] });
      const { error } = await run(provider, request(undefined, { tools }));
      assert.equal(error, undefined);
      const body = server.requests[0].rawBody;
      for (const text of texts) assert.ok(body.includes(text), `the body holds ${text}`);
      assert.deepEqual(JSON.parse(texts[1]), server.requests[0].body.tools[1]);
    } finally {
      await server.close();
    }
  });

  it('OpenAI Responses API: a flat function tool, byte for byte as in the body it sends', async () => {
    const provider = createChatProvider({ provider: 'openai', apiKey: 'sk-test', baseUrl: 'https://api.openai.com/v1', openaiApi: 'responses' });
    const texts = await recordedToolTexts(provider);
    const body = new TextDecoder().decode(responsesBodyChunks(request(undefined, { tools })).join());
    for (const text of texts) assert.ok(body.includes(text), `the body holds ${text}`);
    assert.deepEqual(JSON.parse(texts[0]), JSON.parse(body).tools[0]);
    assert.doesNotMatch(texts[0], /"function":\{/, 'not the Chat Completions form');
  });
});
