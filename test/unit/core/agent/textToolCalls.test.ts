import { strict as assert } from 'assert';
import { readTextToolCalls } from '../../../../src/core/agent/textToolCalls';

const offered = new Set(['read_file', 'list_files']);

describe('tool calls a small model wrote as text', () => {
  it("reads each common form as calls when the reply is nothing but calls of offered tools", () => {
    const cases: Array<[string, string, Array<[string, unknown]>]> = [
      ['Hermes / Qwen 2.5', '<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>', [['read_file', { path: 'README.md' }]]],
      ['two Hermes blocks, the last unclosed', '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>\n<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"a.ts\\"}"}', [['list_files', {}], ['read_file', { path: 'a.ts' }]]],
      ['Qwen 3 XML', '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n<parameter=limit>\n20\n</parameter>\n</function>\n</tool_call>', [['read_file', { path: 'src/a.ts', limit: 20 }]]],
      ['Llama 3.1 python_tag', '<|python_tag|>{"name": "read_file", "parameters": {"path": "b.ts"}}', [['read_file', { path: 'b.ts' }]]],
      ['Llama 3.x bare JSON', '{"name": "list_files", "parameters": {"path": "."}}', [['list_files', { path: '.' }]]],
      ['Mistral', '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "c.ts"}}]', [['read_file', { path: 'c.ts' }]]],
      ['after Qwen 3 thinking', '<think>I should read it.</think>\n<tool_call>{"name": "read_file", "arguments": {"path": "d.ts"}}</tool_call>', [['read_file', { path: 'd.ts' }]]],
    ];
    for (const [form, text, expected] of cases) {
      const reading = readTextToolCalls(text, offered);
      assert.equal(reading.kind, 'calls', form);
      if (reading.kind !== 'calls') continue;
      assert.deepEqual(reading.calls.map((c) => [c.name, JSON.parse(c.arguments)]), expected, form);
    }
  });

  it('leaves text with calls among prose, of tools not offered or with broken JSON as text, said to be a call written as text', () => {
    for (const text of [
      'I will read it.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>',
      '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',
      '<tool_call>{"name": "read_file", "arguments": {"path": </tool_call>',
    ]) {
      assert.equal(readTextToolCalls(text, offered).kind, 'written', text);
    }
  });

  it('plain answers, JSON answers that are not calls, and requests without tools are answers', () => {
    assert.equal(readTextToolCalls('The file has 3 lines.', offered).kind, 'none');
    assert.equal(readTextToolCalls('{"name": "Ada", "age": 36}', offered).kind, 'none');
    assert.equal(readTextToolCalls('<tool_call>{"name": "read_file", "arguments": {}}</tool_call>', new Set()).kind, 'none');
  });
});
