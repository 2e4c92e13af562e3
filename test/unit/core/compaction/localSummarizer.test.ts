import { strict as assert } from 'assert';
import { LocalSummarizer } from '../../../../src/core/compaction/localSummarizer';
import { LlmSummarizer } from '../../../../src/core/compaction/llmSummarizer';
import { call, msg } from '../../../support/syntheticSession';

function session() {
  const read = call('read_file', { path: 'src/parser.ts' });
  const test = call('run_command', { command: 'npm test -- parser' });
  const edit = call('edit_file', { path: 'src/parser.ts', old: 'a', new: 'b' });
  return [
    msg({ role: 'user', content: 'The parser crashes on empty input. Fix it without changing the public API.' }),
    msg({ role: 'assistant', content: 'I will read the parser first.', toolCalls: [read] }),
    msg({ role: 'tool', content: 'export function parse(s) {\n  return s[0];\n}', toolCallId: read.id, toolName: 'read_file' }),
    msg({ role: 'assistant', content: 'Let me run the tests to see the failure.', toolCalls: [test] }),
    msg({ role: 'tool', content: 'FAIL parser.test.ts\nTypeError: Cannot read properties of undefined\nexit code 1', toolCallId: test.id, toolName: 'run_command', meta: { isError: true } }),
    msg({ role: 'assistant', content: 'The root cause is the missing guard for empty strings. I decided to return null instead of throwing.', toolCalls: [edit] }),
    msg({ role: 'tool', content: 'edited src/parser.ts', toolCallId: edit.id, toolName: 'edit_file' }),
    msg({ role: 'assistant', content: 'Next I will rerun the parser tests.' }),
  ];
}

describe('local summarizer', () => {
  it('writes a checkpoint with task, files, commands and outcome, errors, decisions and next step', async () => {
    const text = await new LocalSummarizer().summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000 });
    assert.match(text, /### Task\nThe parser crashes on empty input/);
    assert.match(text, /changed: src\/parser\.ts/);
    assert.match(text, /read: src\/parser\.ts/);
    assert.match(text, /`npm test -- parser` → exit 1/);
    assert.match(text, /### Errors seen\n- run_command: .*TypeError: Cannot read properties of undefined/);
    assert.match(text, /root cause is the missing guard/);
    assert.match(text, /### Next step\nNext I will rerun the parser tests\./);
  });

  it('is deterministic and fits the token budget it is given', async () => {
    const summarizer = new LocalSummarizer();
    const a = await summarizer.summarize({ messages: session(), style: 'checkpoint', maxTokens: 60 });
    const b = await summarizer.summarize({ messages: session(), style: 'checkpoint', maxTokens: 60 });
    assert.equal(a, b);
    assert.ok(a.length <= 60 * 4, `summary of ${a.length} chars exceeds the budget`);
    assert.match(a, /Task|Checkpoint/);
  });

  it('mentions the focus the user asked for', async () => {
    const text = await new LocalSummarizer().summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000, focus: 'the parser API' });
    assert.match(text, /Focus requested: the parser API/);
  });

  it('digests tool calls with their outcomes', async () => {
    const text = await new LocalSummarizer().summarize({ messages: session().slice(1, 7), style: 'tool_digest', maxTokens: 500 });
    assert.match(text, /Digest of 3 earlier tool calls/);
    assert.match(text, /`npm test -- parser` → exit 1/);
  });

  it('a later checkpoint carries the earlier one forward once: its files, latest error, last commands and a decision, each said once', async () => {
    const first = await new LocalSummarizer().summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000 });
    const more = call('run_command', { command: 'git log -1' });
    const later = await new LocalSummarizer().summarize({
      messages: [
        msg({ role: 'user', kind: 'summary', content: first }),
        msg({ role: 'assistant', content: 'Checking the history.', toolCalls: [more] }),
        msg({ role: 'tool', content: 'commit abc', toolCallId: more.id, toolName: 'run_command' }),
      ],
      style: 'checkpoint',
      maxTokens: 2000,
    });
    const count = (text: string) => later.split(text).length - 1;
    assert.equal(count('TypeError: Cannot read properties of undefined'), 2, later); // the latest error, and the errors seen
    assert.equal(count('changed: src/parser.ts'), 1, later);
    assert.equal(count('- check, latest error: `npm test -- parser`'), 1, later);
    assert.equal(count('root cause is the missing guard'), 1, later);
  });

  it('falls back to the local summary when the model fails, saying so', async () => {
    const llm = new LlmSummarizer(async () => {
      throw new Error('HTTP 529 overloaded');
    }, 'cheap-model');
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000 });
    assert.match(text, /### Task/);
    assert.match(text, /model summary failed: HTTP 529 overloaded; local summary used/);
    assert.equal(llm.lastError, 'HTTP 529 overloaded');
  });

  it('uses the model text when the model answers with the shape and the facts, sending it the messages', async () => {
    let seen = '';
    const answer = [
      '## Task', 'Fix the parser on empty input.', '## Files touched', '- src/parser.ts (changed)',
      '## Commands run', '- `npm test -- parser` failed', '## Errors', '- TypeError: Cannot read properties of undefined',
      '## Decisions', '- return null', '## Next step', 'rerun tests',
    ].join('\n');
    const llm = new LlmSummarizer(async ({ user }) => {
      seen = user;
      return answer;
    }, 'cheap-model');
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 500, focus: 'API' });
    assert.equal(text, answer);
    assert.match(seen, /The parser crashes on empty input/);
    assert.match(seen, /Pay particular attention to: API/);
  });

  it("replaces a model's summary that lacks the checkpoint's shape with the local one, saying so", async () => {
    const llm = new LlmSummarizer(async () => '[scripted model] Listing the workspace.', 'scripted');
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000 });
    assert.doesNotMatch(text, /scripted model/);
    assert.match(text, /### Task\nThe parser crashes on empty input/);
    assert.match(text, /changed: src\/parser\.ts/);
    assert.match(text, /\(the model's summary had 0 of the 6 headings: local summary used\)$/);
  });

  it("completes a model's summary with the facts it left out, and says what it added", async () => {
    const forgetful = ['Task: fix the parser.', 'Files touched: src/parser.ts', 'Commands run: the tests.', 'Errors: TypeError: Cannot read properties of undefined', 'Decisions: return null.', 'Next step: rerun.'].join('\n');
    const llm = new LlmSummarizer(async () => forgetful, 'cheap-model');
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000 });
    assert.ok(text.startsWith(forgetful), 'the model text stays first');
    assert.match(text, /- check, latest error: `npm test -- parser` → exit 1/);
    assert.match(text, /\(completed: 1 command the model's summary left out\)$/);
  });

  it("does not ask a model's tool digest for the refs its strategy lists under it", async () => {
    const messages = session().map((m) => (m.role === 'tool' ? { ...m, meta: { ...m.meta, offloadRef: 'r0mwx2jn4o915ca69b78ca' } } : m));
    const digest = 'Read src/parser.ts; `npm test -- parser` failed with TypeError: Cannot read properties of undefined; edited src/parser.ts.';
    const text = await new LlmSummarizer(async () => digest, 'cheap-model').summarize({ messages, style: 'tool_digest', maxTokens: 300 });
    assert.equal(text, digest);
  });
});
