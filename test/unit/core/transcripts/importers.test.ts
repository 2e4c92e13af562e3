import { strict as assert } from 'assert';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { validateHistory } from '../../../../src/core/history/normalize';
import { importTranscript } from '../../../../src/core/transcripts/detect';
import { importTranscriptFile, MAX_TRANSCRIPT_BYTES } from '../../../../src/node/transcripts/readTranscriptFile';
import { parsePythonLiteral } from '../../../../src/core/transcripts/pythonLiteral';
import { TranscriptError } from '../../../../src/core/transcripts/types';

const ROOT = join(__dirname, '..', '..', '..', '..');

describe('transcript importers', () => {
  it('imports a mini-swe-agent run: bash blocks become tool calls, observations their results', () => {
    const t = importTranscriptFile(join(ROOT, 'media', 'demo', 'demo-run.traj.json'));
    assert.equal(t.format, 'mini-swe-agent');
    assert.equal(t.messages.length, 186);
    assert.equal(t.messages.filter((m) => m.toolCalls?.length).length, 92);
    assert.equal(t.messages.filter((m) => m.role === 'tool').length, 90);
    const call = t.messages.find((m) => m.toolCalls)!.toolCalls![0];
    assert.equal(call.name, 'bash');
    assert.ok(typeof JSON.parse(call.arguments).command === 'string');
    assert.ok(t.messages.some((m) => m.role === 'tool' && m.meta?.isError), 'non-zero return codes are errors');
    assert.equal(t.meta.instanceId, 'pytest-dev__pytest-6197');
    assert.equal(t.meta.warnings.length, 2, 'two calls without an observation are reported');
  });

  it('imports a SWE-agent .traj with its tool calls paired', () => {
    const t = importTranscriptFile(join(ROOT, 'test', 'fixtures', 'transcripts', 'function_calling_simple.traj'));
    assert.equal(t.format, 'swe-agent');
    assert.equal(t.messages.length, 12);
    assert.deepEqual(validateHistory(t.messages.filter((m) => m.role !== 'system')), []);
    assert.equal(t.messages.filter((m) => m.toolCalls?.length).length, 5);
  });

  it('parses SWE-agent tool_calls given as a Python-style list string', () => {
    const value = parsePythonLiteral(`[{'function': {'arguments': '{"command":"ls -F"}', 'name': 'bash'}, 'id': 'call_1', 'type': 'function', 'ok': True, 'x': None, 'n': -1.5, 's': 'it\\'s\\n'}]`);
    assert.deepEqual(value, [{ function: { arguments: '{"command":"ls -F"}', name: 'bash' }, id: 'call_1', type: 'function', ok: true, x: null, n: -1.5, s: "it's\n" }]);
    const t = importTranscript('x.traj', JSON.stringify({ history: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'listing', tool_calls: "[{'function': {'arguments': '{}', 'name': 'bash'}, 'id': 'c1'}]" },
      { role: 'tool', content: 'a b c', tool_call_ids: "['c1']" },
    ] }));
    assert.equal(t.messages[1].toolCalls![0].id, 'c1');
    assert.equal(t.messages[2].toolName, 'bash');
  });

  it('imports OpenAI chat messages, as JSON and as JSONL', () => {
    const messages = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'read a.ts' }, { type: 'image_url', image_url: { url: 'data:' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'export {}' },
      { role: 'assistant', content: 'done' },
    ];
    for (const text of [JSON.stringify(messages), messages.map((m) => JSON.stringify(m)).join('\n')]) {
      const t = importTranscript('chat.json', text);
      assert.equal(t.format, 'openai');
      assert.deepEqual(t.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant']);
      assert.equal(t.messages[1].meta?.images, 1);
      assert.equal(t.messages[2].toolCalls![0].arguments, '{"path":"a.ts"', 'invalid JSON arguments are kept raw');
    }
  });

  it('imports Anthropic messages with tool_use and tool_result blocks', () => {
    const t = importTranscript('a.json', JSON.stringify({ system: 'sys', messages: [
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'list_files', input: { path: '.' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a.ts' }], is_error: false }] },
    ] }));
    assert.equal(t.format, 'anthropic');
    assert.deepEqual(t.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.equal(t.messages[3].content, 'a.ts');
    assert.equal(t.messages[2].toolCalls![0].arguments, '{"path":"."}');
  });

  for (const [name, text, problem] of [
    ['empty', '', /empty\.json: the file is empty/],
    ['truncated JSON', '{"messages": [{"role": "user", "content": "hi"}', /truncated\.json: not valid JSON/],
    ['wrong types', '{"messages": "nope"}', /wrong\.json: messages: messages must be a list/],
    ['content a number', '[{"role":"user","content":42}]', /number\.json: messages\[0\]\.content: content must be a string or a list of parts/],
    ['unknown format', '{"foo": 1}', /unknown\.json: not a known transcript format/],
  ] as const) {
    it(`rejects ${name} with an error naming the file and the first problem`, () => {
      const file = `${name === 'empty' ? 'empty' : name === 'truncated JSON' ? 'truncated' : name === 'wrong types' ? 'wrong' : name === 'content a number' ? 'number' : 'unknown'}.json`;
      assert.throws(() => importTranscript(file, text), (error: unknown) => error instanceof TranscriptError && problem.test(error.message));
    });
  }

  it('imports a 50 MB transcript without crashing, and refuses files over the cap', function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'tally-transcript-'));
    try {
      const big = Array.from({ length: 2_500 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'z'.repeat(20_000) }));
      const path = join(dir, 'big.json');
      writeFileSync(path, JSON.stringify(big));
      const t = importTranscriptFile(path);
      assert.equal(t.messages.length, 2_500);
      assert.equal(t.messages[2_499].content, 'z'.repeat(20_000), 'the last message arrives whole');
      assert.throws(() => importTranscriptFile(join(dir, 'missing.json')), /missing\.json: cannot read the file \(ENOENT\)/);
      const huge = join(dir, 'huge.json');
      writeFileSync(huge, '');
      truncateSync(huge, MAX_TRANSCRIPT_BYTES + 1); // sparse: 64 MiB + 1 byte without writing them
      assert.throws(() => importTranscriptFile(huge), /huge\.json: the file is 64\.0 MiB; the limit is 64 MiB/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
