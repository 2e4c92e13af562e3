import { strict as assert } from 'assert';
import { toAnthropicBody } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { anthropicRequestProblem } from '../../../fakes/anthropicServer';
import { message, request, toolCall } from './harness';

function cached(body: any): string[] {
  const out: string[] = [];
  for (const b of body.system ?? []) if (b.cache_control) out.push(`system:${b.text}`);
  body.messages.forEach((m: any, i: number) =>
    m.content.forEach((b: any) => {
      if (b.cache_control) out.push(`messages.${i}:${b.type}`);
    }),
  );
  return out;
}

describe('Anthropic request mapping', () => {
  it('merges the tool results of one assistant turn into one user turn, results first, with is_error', () => {
    const body = toAnthropicBody(
      request([
        message({ role: 'user', content: 'Fix it' }),
        message({ role: 'assistant', content: 'Looking.', toolCalls: [toolCall('call_1', 'read_file', { path: 'a' }), toolCall('call_2', 'run_command', { command: 'npm test' })] }),
        message({ role: 'tool', content: 'file a', toolCallId: 'call_1' }),
        message({ role: 'tool', content: 'FAIL', toolCallId: 'call_2', meta: { isError: true } }),
        message({ role: 'user', kind: 'note', content: 'Context: 50% used.' }),
      ]),
    ) as any;
    assert.equal(anthropicRequestProblem(body), undefined);
    assert.deepEqual(body.messages.map((m: any) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(body.messages[1].content.map((b: any) => [b.type, b.id ?? null]), [
      ['text', null],
      ['tool_use', 'call_1'],
      ['tool_use', 'call_2'],
    ]);
    assert.deepEqual(body.messages[1].content[1].input, { path: 'a' });
    assert.deepEqual(body.messages[2].content.map((b: any) => [b.type, b.tool_use_id ?? b.text, b.is_error ?? false]), [
      ['tool_result', 'call_1', false],
      ['tool_result', 'call_2', true],
      ['text', 'Context: 50% used.', false],
    ]);
  });

  it('puts cache_control on the latest flagged system blocks and the conversation, never more than 4', () => {
    const system = ['base', 'agents', 'memories', 'skills'].map((text) => ({ text, cacheBreakpoint: true }));
    const body = toAnthropicBody(
      request(
        [
          message({ role: 'user', content: 'first' }),
          message({ role: 'assistant', content: 'answer' }),
          message({ role: 'user', content: 'second' }),
          message({ role: 'user', kind: 'note', content: 'Context: 12% used.' }),
        ],
        { system: [...system, { text: 'scratch' }] },
      ),
    );
    assert.deepEqual(cached(body), ['system:agents', 'system:memories', 'system:skills', 'messages.2:text']);
    const last = (body as any).messages[2].content;
    assert.equal(last[0].text, 'second', 'the breakpoint sits before the dynamic note');
    assert.equal(last[1].cache_control, undefined);
  });

  it('without a conversation breakpoint all four slots go to the system prompt', () => {
    const system = ['a', 'b', 'c', 'd', 'e'].map((text) => ({ text, cacheBreakpoint: true }));
    const body = toAnthropicBody(request(undefined, { system }), { cacheConversation: false });
    assert.deepEqual(cached(body), ['system:b', 'system:c', 'system:d', 'system:e']);
  });

  it('keeps invalid tool arguments as text under _invalid_arguments, and empty ones as {}', () => {
    const body = toAnthropicBody(
      request([
        message({ role: 'user', content: 'go' }),
        message({ role: 'assistant', content: '', toolCalls: [toolCall('c1', 'read_file', '{"path": "a'), toolCall('c2', 'list_files', ''), toolCall('c3', 'x', '[1,2]')] }),
        message({ role: 'tool', content: 'bad json', toolCallId: 'c1' }),
        message({ role: 'tool', content: 'a\nb', toolCallId: 'c2' }),
        message({ role: 'tool', content: 'no', toolCallId: 'c3' }),
      ]),
    ) as any;
    const inputs = body.messages[1].content.map((b: any) => b.input);
    assert.deepEqual(inputs, [{ _invalid_arguments: '{"path": "a' }, {}, { _invalid_arguments: '[1,2]' }]);
    assert.equal(body.messages[1].content[0].type, 'tool_use', 'an empty assistant text is not sent');
  });

  it('drops empty messages, makes tool ids fit the API pattern, and trims a final assistant turn', () => {
    const body = toAnthropicBody(
      request([
        message({ role: 'user', content: 'go' }),
        message({ role: 'assistant', content: '   ' }),
        message({ role: 'user', content: 'again' }),
        message({ role: 'assistant', content: 'Calling.', toolCalls: [toolCall('functions.read_file:0', 'read_file', { path: 'a' })] }),
        message({ role: 'tool', content: '', toolCallId: 'functions.read_file:0' }),
        message({ role: 'assistant', content: 'Partial answer \n' }),
      ]),
    ) as any;
    assert.equal(anthropicRequestProblem(body), undefined);
    assert.deepEqual(body.messages[0].content.map((b: any) => b.text), ['go', 'again']);
    assert.equal(body.messages[1].content[1].id, 'functions_read_file_0');
    assert.equal(body.messages[2].content[0].tool_use_id, 'functions_read_file_0');
    assert.equal(body.messages[2].content[0].content, undefined, 'an empty result has no content');
    assert.equal(body.messages[3].content[0].text, 'Partial answer');
  });

  it('sends tools with input_schema, the model, max_tokens and stream', () => {
    const body = toAnthropicBody(request(undefined, { temperature: 0.2 })) as any;
    assert.equal(body.model, 'test-model');
    assert.equal(body.max_tokens, 1024);
    assert.equal(body.stream, true);
    assert.equal(body.temperature, 0.2);
    assert.deepEqual(body.tools[0].input_schema.required, ['path']);
    assert.equal(body.tools[0].input_schema.type, 'object');
  });
});
