import { strict as assert } from 'assert';
import { toOpenAIBody } from '../../../../src/core/providers/openai/openaiRequest';
import { ToolCallAssembler } from '../../../../src/core/providers/openai/openaiToolCalls';
import { openaiRequestProblem } from '../../../fakes/openaiServer';
import { message, request, toolCall } from './harness';

describe('OpenAI request mapping', () => {
  it('sends one system message first, assistant tool_calls, tool messages with tool_call_id', () => {
    const body = toOpenAIBody(
      request(
        [
          message({ role: 'user', content: 'Fix it' }),
          message({ role: 'assistant', content: '', toolCalls: [toolCall('call_1', 'read_file', { path: 'a' })] }),
          message({ role: 'tool', content: 'file a', toolCallId: 'call_1' }),
          message({ role: 'system', kind: 'summary', content: 'Summary of earlier work.' }),
        ],
        { system: [{ text: 'Base.', cacheBreakpoint: true }, { text: 'Rules.' }] },
      ),
      { maxTokensField: 'max_tokens' },
    ) as any;
    assert.equal(openaiRequestProblem(body), undefined);
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'Base.\n\nRules.' },
      { role: 'user', content: 'Fix it' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'file a' },
      { role: 'system', content: 'Summary of earlier work.' },
    ]);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.max_tokens, 1024);
    assert.equal(body.max_completion_tokens, undefined);
    assert.deepEqual(body.tools[0], { type: 'function', function: { name: 'read_file', description: 'Read a file of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } });
  });

  it('uses max_completion_tokens when asked, and can leave out stream_options', () => {
    const body = toOpenAIBody(request(), { maxTokensField: 'max_completion_tokens', includeUsage: false }) as any;
    assert.equal(body.max_completion_tokens, 1024);
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.stream_options, undefined);
  });

  it('sends valid arguments byte for byte and wraps invalid ones as JSON', () => {
    const spaced = '{ "path" : "a.ts" }';
    const body = toOpenAIBody(
      request([
        message({ role: 'user', content: 'go' }),
        message({ role: 'assistant', content: 'x', toolCalls: [toolCall('c1', 'read_file', spaced), toolCall('c2', 'read_file', '{"path": '), toolCall('c3', 'list_files', '')] }),
        message({ role: 'tool', content: 'a', toolCallId: 'c1' }),
        message({ role: 'tool', content: 'b', toolCallId: 'c2' }),
        message({ role: 'tool', content: 'c', toolCallId: 'c3' }),
      ]),
      { maxTokensField: 'max_tokens' },
    ) as any;
    const args = body.messages[2].tool_calls.map((c: any) => c.function.arguments);
    assert.deepEqual(args, [spaced, '{"_invalid_arguments":"{\\"path\\": "}', '{}']);
    for (const a of args) assert.doesNotThrow(() => JSON.parse(a));
  });
});

describe('OpenAI tool-call delta assembly', () => {
  it('joins fragments by index, with id and name from the first fragment', () => {
    const a = new ToolCallAssembler();
    a.apply([{ index: 0, id: 'call_x', type: 'function', function: { name: 'read_file', arguments: '' } }]);
    a.apply([{ index: 1, id: 'call_y', type: 'function', function: { name: 'list_files', arguments: '{"d' } }]);
    a.apply([{ index: 0, function: { arguments: '{"path":' } }]);
    a.apply([{ index: 0, function: { arguments: '"a.ts"}' } }]);
    a.apply([{ index: 1, function: { arguments: 'ir":"src"}' } }]);
    assert.deepEqual(a.complete(), [
      { id: 'call_x', name: 'read_file', arguments: '{"path":"a.ts"}' },
      { id: 'call_y', name: 'list_files', arguments: '{"dir":"src"}' },
    ]);
  });

  it('handles servers that omit index, send whole calls, or send arguments as an object', () => {
    const a = new ToolCallAssembler();
    a.apply([{ id: 'call_1', function: { name: 'read_file', arguments: '{"path":"a"}' } }, { id: 'call_2', function: { name: 'read_file', arguments: { path: 'b' } } }]);
    a.apply([{ function: { arguments: '' } }]);
    a.apply([{ index: 5, function: { name: 'no_id', arguments: '{}' } }]);
    const calls = a.complete();
    assert.deepEqual(calls.slice(0, 2), [
      { id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' },
      { id: 'call_2', name: 'read_file', arguments: '{"path":"b"}' },
    ]);
    assert.match(calls[2].id, /^call_tally_\w+$/);
    assert.deepEqual({ ...calls[2], id: '' }, { id: '', name: 'no_id', arguments: '{}' });
  });
});
