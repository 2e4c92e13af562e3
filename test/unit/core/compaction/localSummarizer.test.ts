import { strict as assert } from 'assert';
import { LocalSummarizer } from '../../../../src/core/compaction/localSummarizer';
import { LlmSummarizer } from '../../../../src/core/compaction/llmSummarizer';
import type { Message } from '../../../../src/core/model/message';
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

const summarize = (messages: Message[], maxTokens = 2000) => new LocalSummarizer().summarize({ messages, style: 'checkpoint', maxTokens });
const section = (text: string, heading: string) => new RegExp(`^### ${heading}\\n((?:(?!### ).*\\n?)*)`, 'm').exec(text)?.[1] ?? '';

/** What mini-swe-agent and SWE-agent runs look like: bash calls whose output carries a return code. */
function bashStep(thought: string, command: string, output: string, code = 0): Message[] {
  const c = call('bash', { command });
  return [
    msg({ role: 'assistant', content: thought, toolCalls: [c] }),
    msg({ role: 'tool', toolCallId: c.id, toolName: 'bash', content: `<returncode>${code}</returncode>\n<output>\n${output}\n</output>`, meta: code ? { isError: true } : undefined }),
  ];
}

/** A first message as some frameworks send it: a worked demonstration of another task, then the issue being solved. */
const DEMONSTRATION_FIRST = [
  'Here is a demonstration of how to correctly accomplish this task.',
  'It is included to show you how to correctly use the interface.',
  'You do not need to follow exactly what is done in the demonstration.',
  '--- DEMONSTRATION ---',
  "We're currently solving the following issue within our repository. Here's the issue text:",
  'ISSUE:',
  'TimeDelta serialization precision: `TimeDelta(precision="milliseconds")` gives 344 for 345 ms.',
  '',
  'INSTRUCTIONS:',
  'Edit the files you need to.',
  ...Array.from({ length: 200 }, (_, i) => `demo step ${i}: open src/marshmallow/fields.py and look at line ${1400 + i}`),
  '--- END OF DEMONSTRATION ---',
  '',
  "We're currently solving the following issue within our repository. Here's the issue text:",
  'ISSUE:',
  'Pipeline should implement __len__: `len(pipe)` raises TypeError in sklearn/pipeline.py.',
  '',
  'INSTRUCTIONS:',
  'Now, solve this issue on your own. Edit the files you need to.',
].join('\n');

describe('local summarizer', () => {
  it('writes where the work stands: the task, what was established and where, what changed and whether it was checked, the latest error, the next step', async () => {
    const text = await summarize(session());
    assert.match(text, /### Task\nThe parser crashes on empty input/);
    assert.match(section(text, 'Established'), /- The root cause is the missing guard for empty strings\. \(from run_command `npm test -- parser`\)/);
    assert.match(section(text, 'Established'), /I decided to return null instead of throwing\./);
    assert.match(section(text, 'Changed and verified'), /- changed: src\/parser\.ts\n- not checked since changed: src\/parser\.ts/);
    assert.match(text, /### Latest error\nTypeError: Cannot read properties of undefined/);
    assert.match(text, /- check, latest error: `npm test -- parser` → exit 1/);
    // The fix was made after the error and no check ran since: checking it is what comes next.
    assert.match(text, /### Next step\nCheck the change to src\/parser\.ts with `npm test -- parser`\./);
    assert.doesNotMatch(text, /Earlier checkpoints|Commands run|Decisions and findings/);
  });

  it("lists conclusions as findings, guesses as open questions, and leaves out thinking aloud and plans without an object", async () => {
    const messages = [
      msg({ role: 'user', content: 'Fix MultiValueField validation of required subfields.' }),
      // Each thought reads the output of the call before it.
      ...bashStep('THOUGHT: Let me find the class.', 'grep -n "class MultiValueField" django/forms/fields.py', '966:class MultiValueField(Field):'),
      ...bashStep('THOUGHT: `MultiValueField` is in `django/forms/fields.py` at line 966.\n\nLet me look at the clean method.', 'python reproduce.py', 'Case 1: True (expected False)', 1),
      ...bashStep('THOUGHT: Maybe the subfields should decide whether empty input is valid?\nWait, if `required` is False, so it returns None.\nI will correct this.', 'git log -1 --oneline django/forms/fields.py', '3c2d1a0 Fixed MultiValueField'),
      msg({ role: 'assistant', content: 'THOUGHT: The fix is already in the tree: `clean` validates each subfield since commit 3c2d.' }),
    ];
    const text = await summarize(messages);
    const established = section(text, 'Established');
    assert.match(established, /- `MultiValueField` is in `django\/forms\/fields\.py` at line 966\. \(from bash `grep -n "class MultiValueField" django\/forms\/fields\.py`\)/);
    assert.match(established, /- The fix is already in the tree: `clean` validates each subfield since commit 3c2d\. \(from bash `git log -1 --oneline django\/forms\/fields\.py`\)/);
    assert.match(section(text, 'Open questions'), /- Maybe the subfields should decide whether empty input is valid\?/);
    for (const fragment of ['Maybe', 'Wait, if', 'I will correct this', 'Let me look']) assert.doesNotMatch(established, new RegExp(fragment), `${fragment} is not a finding`);
    assert.doesNotMatch(text, /I will correct this/);
  });

  it('names the task being solved, not the worked demonstration of another task the first message carries', async () => {
    const messages = [msg({ role: 'user', content: DEMONSTRATION_FIRST }), ...bashStep('THOUGHT: `Pipeline` has no `__len__` in sklearn/pipeline.py.', 'grep -n "def __len__" sklearn/pipeline.py', '', 1)];
    const text = await summarize(messages);
    assert.match(text, /### Task\nPipeline should implement __len__: `len\(pipe\)` raises TypeError in sklearn\/pipeline\.py\./);
    assert.doesNotMatch(text, /### Latest request/);
    assert.doesNotMatch(text, /demonstration|TimeDelta|marshmallow|demo step/i, text);
  });

  it('a model asked for the summary is sent the task, with the demonstration left out and said to be', async () => {
    let seen = '';
    const llm = new LlmSummarizer(async ({ user }) => {
      seen = user;
      return 'no shape';
    }, 'cheap-model');
    const text = await llm.summarize({ messages: [msg({ role: 'user', content: DEMONSTRATION_FIRST }), ...bashStep('Looking.', 'ls', 'sklearn')], style: 'checkpoint', maxTokens: 2000 });
    assert.match(seen, /\[a worked demonstration of another task, [\d,]+ characters, left out\]\nWe're currently solving the following issue within our repository\. Here's the issue text:\nISSUE:\nPipeline should implement __len__/);
    assert.doesNotMatch(seen, /TimeDelta|demo step/);
    // Its answer lacked the shape: the local summary, which names the same task, replaces it.
    assert.match(text, /### Task\nPipeline should implement __len__/);
  });

  it('a message that is only a demonstration is not the task: the message after it is', async () => {
    const demo = DEMONSTRATION_FIRST.slice(0, DEMONSTRATION_FIRST.indexOf('--- END OF DEMONSTRATION ---') + '--- END OF DEMONSTRATION ---'.length);
    const text = await summarize([msg({ role: 'user', content: demo }), msg({ role: 'user', content: 'Make `Pipeline` support `len()`.' }), ...bashStep('Looking.', 'ls', 'sklearn')]);
    assert.match(text, /### Task\nMake `Pipeline` support `len\(\)`\./);
    assert.doesNotMatch(text, /TimeDelta|demo step/);
  });

  it('keeps a multi-line command whole, not cut to its first line', async () => {
    const command = 'cd reproduce_issue && \\\n  python -m pytest tests/test_pipeline.py -k "len and not slow" \\\n  -x -q';
    const messages = [msg({ role: 'user', content: 'Make Pipeline support len().' }), ...bashStep('Running the check.', command, 'E   TypeError: object of type \'Pipeline\' has no len()\ntests/test_pipeline.py:42: TypeError\n1 failed in 0.31s', 1)];
    const text = await summarize(messages);
    assert.ok(text.includes(`- check, latest error → exit 1: 1 failed\n\`\`\`\n${command}\n\`\`\``), text);
    assert.match(text, /### Next step\nFix `1 failed in 0\.31s` \(tests\/test_pipeline\.py:42: TypeError\), then run the check under Last commands again\./);
    assert.doesNotMatch(text, /`cd reproduce_issue && \\` →/);
  });

  it('names each stored output by what it holds', async () => {
    const messages = [msg({ role: 'user', content: 'Fix the failing parser tests.' }), ...bashStep('Running the tests.', 'pytest tests/test_parser.py', 'F.F.F\n3 failed, 12 passed in 1.20s', 1), ...bashStep('Reading the parser.', 'cat src/parser.py', 'def parse(s):\n    return s[0]')]
      .map((m, i) => (m.role === 'tool' ? { ...m, meta: { ...m.meta, offloadRef: `ref_${i}` } } : m));
    // A result masking archived earlier keeps what its pointer says of it.
    const ls = call('bash', { command: 'ls -R src' });
    messages.push(
      msg({ role: 'assistant', content: 'Listing.', toolCalls: [ls] }),
      msg({ role: 'tool', kind: 'tool_result_archived', toolCallId: ls.id, toolName: 'bash', content: '[Archived tool result: bash {"command":"ls -R src"} — ok, 240 lines, 1,310 tokens, retrievable with read_result ref_id="ref_ls"]', meta: { offloadRef: 'ref_ls' } }),
    );
    const text = await summarize(messages);
    assert.match(text, /Stored outputs \(read_result ref_id\):\n- ref_2: bash `pytest tests\/test_parser\.py` → exit 1, 3 failed, 12 passed, \d+ lines\n- ref_4: bash `cat src\/parser\.py` → ok, \d+ lines\n- ref_ls: bash `ls -R src` → ok, 240 lines, 1,310 tokens\n/);
  });

  it('a later checkpoint merges the earlier one: each fact once, the earlier refs with what they hold, no repeated sections', async () => {
    const first = await summarize(session().map((m) => (m.role === 'tool' ? { ...m, meta: { ...m.meta, offloadRef: `r_${m.id}` } } : m)));
    const more = call('run_command', { command: 'npm test -- parser' });
    const later = await summarize([
      msg({ role: 'user', kind: 'summary', content: first }),
      msg({ role: 'assistant', content: 'The parser tests pass now.', toolCalls: [more] }),
      msg({ role: 'tool', content: 'PASS parser.test.ts\nexit code 0', toolCallId: more.id, toolName: 'run_command' }),
    ]);
    const count = (text: string) => later.split(text).length - 1;
    for (const once of ['### Task', 'The parser crashes on empty input', 'root cause is the missing guard', '- changed: src/parser.ts', 'TypeError: Cannot read properties of undefined', '### Next step']) {
      assert.equal(count(once), 1, `${once}\n${later}`);
    }
    assert.doesNotMatch(later, /Earlier checkpoints/);
    // The earlier stored outputs keep their descriptions.
    assert.match(later, /- r_t\d+: run_command `npm test -- parser` → exit 1, \d+ lines/);
    // The check after the fix passed: the change is verified.
    assert.match(section(later, 'Changed and verified'), /- checked after the change: `npm test -- parser` → ok/);
    assert.doesNotMatch(later, /not checked since changed/);
  });

  it('the next step is the concrete action the agent planned, else what the state calls for', async () => {
    const planned = await summarize([msg({ role: 'user', content: 'Fix it.' }), ...bashStep('The bug is in `parse`. I will apply the `sed` fix to `src/parser.py` next.', 'cat src/parser.py', 'def parse(s): return s[0]')]);
    assert.match(planned, /### Next step\nI will apply the `sed` fix to `src\/parser\.py` next\./);
    const failing = await summarize([msg({ role: 'user', content: 'Fix it.' }), ...bashStep('Running.', 'pytest tests/test_parser.py', 'tests/test_parser.py:42: in test_empty\nE   IndexError: string index out of range', 1), msg({ role: 'assistant', content: 'I will execute these steps.' })]);
    assert.match(failing, /### Next step\nFix `E IndexError: string index out of range` \(tests\/test_parser\.py:42: in test_empty\), then run `pytest tests\/test_parser\.py` again\./);
    assert.doesNotMatch(failing, /I will execute these steps/);
  });

  it('is deterministic and fits the token budget it is given', async () => {
    const a = await summarize(session(), 60);
    const b = await summarize(session(), 60);
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

  it('falls back to the local summary when the model fails, saying so', async () => {
    const llm = new LlmSummarizer(async () => {
      throw new Error('HTTP 529 overloaded');
    }, 'cheap-model');
    const notes: string[] = [];
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000, onNote: (n) => notes.push(n) });
    assert.match(text, /### Task/);
    assert.deepEqual(notes, ['model summary failed: HTTP 529 overloaded; local summary used']);
    assert.doesNotMatch(text, /local summary used|HTTP 529/, 'the note is for the user, not the model');
    assert.equal(llm.lastError, 'HTTP 529 overloaded');
  });

  it('uses the model text when the model answers with the shape and the facts, sending it the messages and the shape asked for', async () => {
    let seen = '';
    let system = '';
    const answer = [
      '## Task', 'Fix the parser on empty input.', '## Established', '- the root cause is the missing guard (from `npm test -- parser`)',
      '## Changed and verified', '- src/parser.ts, not checked yet', '## Failed', '- `npm test -- parser`: TypeError: Cannot read properties of undefined',
      '## Open questions', '- none', '## Next step', 'rerun `npm test -- parser`',
    ].join('\n');
    const llm = new LlmSummarizer(async (prompt) => {
      seen = prompt.user;
      system = prompt.system;
      return answer;
    }, 'cheap-model');
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 500, focus: 'API' });
    assert.equal(text, answer);
    assert.match(seen, /The parser crashes on empty input/);
    assert.match(seen, /Pay particular attention to: API/);
    assert.match(system, /Task, Established, Changed, Failed, Open questions, Next step/);
    assert.match(system, /not a worked example or demonstration/);
  });

  it("replaces a model's summary that lacks the checkpoint's shape with the local one, saying so", async () => {
    const llm = new LlmSummarizer(async () => '[scripted model] Listing the workspace.', 'scripted');
    const notes: string[] = [];
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000, onNote: (n) => notes.push(n) });
    assert.doesNotMatch(text, /scripted model/);
    assert.match(text, /### Task\nThe parser crashes on empty input/);
    assert.match(text, /changed: src\/parser\.ts/);
    assert.deepEqual(notes, ["the model's summary had 0 of the 6 headings: local summary used"]);
    assert.doesNotMatch(text, /local summary used/, 'the note is for the user, not the model');
  });

  it("completes a model's summary with the facts it left out, and says what it added", async () => {
    const forgetful = ['Task: fix the parser.', 'Established: the guard is missing.', 'Changed: src/parser.ts', 'Failed: TypeError: Cannot read properties of undefined', 'Open questions: none.', 'Next step: rerun.'].join('\n');
    const llm = new LlmSummarizer(async () => forgetful, 'cheap-model');
    const notes: string[] = [];
    const text = await llm.summarize({ messages: session(), style: 'checkpoint', maxTokens: 2000, onNote: (n) => notes.push(n) });
    assert.ok(text.startsWith(forgetful), 'the model text stays first');
    assert.match(text, /- check, latest error: `npm test -- parser` → exit 1/);
    assert.match(text, /### Completed from the session/, 'the facts themselves stay in the text');
    assert.deepEqual(notes, ["completed: 1 command the model's summary left out"]);
    assert.doesNotMatch(text, /\(completed:/, 'the note is for the user, not the model');
  });

  it("does not ask a model's tool digest for the refs its strategy lists under it", async () => {
    const messages = session().map((m) => (m.role === 'tool' ? { ...m, meta: { ...m.meta, offloadRef: 'r0mwx2jn4o915ca69b78ca' } } : m));
    const digest = 'Read src/parser.ts; `npm test -- parser` failed with TypeError: Cannot read properties of undefined; edited src/parser.ts.';
    const text = await new LlmSummarizer(async () => digest, 'cheap-model').summarize({ messages, style: 'tool_digest', maxTokens: 300 });
    assert.equal(text, digest);
  });
});
