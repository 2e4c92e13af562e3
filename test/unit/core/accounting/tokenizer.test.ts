import { strict as assert } from 'assert';
import { countTurns } from '../../../support/eventLoopTurns';
import { readFileSync } from 'fs';
import { Tiktoken } from 'js-tiktoken/lite';
import { ContextBudget } from '../../../../src/core/accounting/budget';
import { ComponentTally } from '../../../../src/core/accounting/componentTally';
import { countMessage, countToolDefinitions, IMAGE_TOKEN_ESTIMATE } from '../../../../src/core/accounting/messageTokens';
import { loadRanksAsync, loadRanksSync } from '../../../../src/core/accounting/rankLoader';
import { getTokenCounter } from '../../../../src/core/accounting/tokenizer';
import type { Message } from '../../../../src/core/model/message';
import { withSettings } from '../../../../src/core/settings';

function reference(encoding: 'o200k_base' | 'cl100k_base'): Tiktoken {
  const ranks = require(`js-tiktoken/ranks/${encoding}`);
  return new Tiktoken(ranks.default ?? ranks);
}

const SAMPLES = [
  'plain english text, with punctuation!',
  'hello <|endoftext|> world <|im_start|>system<|im_end|>',
  readFileSync(__filename, 'utf8'),
  '日本語のテキストと emoji 😀👍🏽 and CJK 中文字符',
  '   leading spaces\n\n\n\ttabs\r\nwindows lines\r\n',
  JSON.stringify({ a: [1, 2, 3], b: { c: 'd"e' }, long: 'x'.repeat(500) }),
  'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\nZeroDivisionError: division by zero\n',
  '0123456789 1234567 3.14159e-10 0xdeadbeef',
];

describe('token counting', function () {
  this.timeout(30_000);
  for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
    it(`matches js-tiktoken exactly on varied text (${encoding})`, () => {
      const counter = getTokenCounter(encoding);
      const ref = reference(encoding);
      for (const text of SAMPLES) assert.equal(counter.count(text), ref.encode(text, [], []).length, `mismatch on ${JSON.stringify(text.slice(0, 40))}`);
    });
  }

  it('counts special-token strings as plain text instead of throwing', () => {
    const counter = getTokenCounter('o200k_base');
    const text = 'before <|endoftext|> after';
    assert.ok(counter.count(text) > 5, 'the special string is several text tokens, not one control token');
  });

  it('loads nothing until the first count', () => {
    const counter = getTokenCounter('o200k_base');
    assert.equal(typeof counter.count, 'function');
    assert.equal(getTokenCounter('o200k_base'), counter, 'one counter per encoding per process');
  });

  it('counts large text asynchronously to the same total, letting the event loop turn', async () => {
    const counter = getTokenCounter('o200k_base');
    const text = Array.from({ length: 60_000 }, (_, i) => `line ${i}: value=${i * 7} status=${i % 3 ? 'ok' : 'FAILED'}`).join('\n');
    const { result: total, turns } = await countTurns(() => counter.countAsync(text));
    assert.equal(total, counter.count(text));
    assert.ok(turns > 0, 'the event loop ran while counting');
  });

  it('counts a 2 MB single-piece line in near-linear time, and the same sliced as whole', async () => {
    const counter = getTokenCounter('o200k_base');
    const line = 'q'.repeat(2 * 1024 * 1024);
    // A quadratic merge would take hours here (the test's timeout ends it); the heap-based one takes about a second.
    const whole = counter.count(line);
    assert.equal(await counter.countAsync(line), whole);
    assert.equal(whole, counter.count('q'.repeat(1024 * 1024)) * 2, 'the same run twice as long has exactly twice the tokens');
  });

  it('gives the same total sliced as whole where slices would cut inside pieces (no newlines, long spaces, mixed scripts)', async () => {
    const counter = getTokenCounter('o200k_base');
    const samples = [
      Array.from({ length: 30_000 }, (_, i) => `word${i}${' '.repeat(i % 5)}`).join(''),
      ' '.repeat(200_000) + 'end',
      Array.from({ length: 20_000 }, (_, i) => (i % 3 ? 'Ünïcødé' : '日本語') + (i % 7 ? '' : '\r\n')).join(''),
    ];
    for (const text of samples) assert.equal(await counter.countAsync(text), counter.count(text));
  });

  it('loads the ranks in slices: the same table as a synchronous load', async () => {
    const sliced = await loadRanksAsync('cl100k_base');
    const whole = loadRanksSync('cl100k_base');
    assert.equal(sliced.table.size, whole.table.size);
    assert.equal(sliced.table.size, 100_256);
    assert.equal(sliced.pattern, whole.pattern);
    for (const word of ['hello', ' the', '!']) {
      const bytes = Buffer.from(word);
      assert.equal(sliced.table.rankOf(bytes, 0, bytes.length), whole.table.rankOf(bytes, 0, bytes.length));
    }
  });

  it('counts tool-call names and arguments, images, and memoizes per message', () => {
    const counter = getTokenCounter('o200k_base');
    const plain: Message = { id: 'a', role: 'assistant', kind: 'assistant', content: 'Reading.', agentVisible: true, userVisible: true, createdAt: 1 };
    const withCall: Message = { ...plain, id: 'b', toolCalls: [{ id: 'c1', name: 'read_file', arguments: JSON.stringify({ path: 'src/some/long/path/to/a/file.ts' }) }] };
    const withImages: Message = { ...plain, id: 'c', meta: { images: 2 } };
    const base = countMessage(plain, counter);
    assert.ok(countMessage(withCall, counter) > base + 10);
    assert.equal(countMessage(withImages, counter), base + 2 * IMAGE_TOKEN_ESTIMATE);
    assert.equal(plain.tokens, undefined, 'the count is not a field of the message');
    assert.equal(JSON.stringify(plain).includes(String(base)), false, 'nor stored with it');
    let calls = 0;
    const spy = { ...counter, encoding: counter.encoding, count: (t: string) => (calls++, counter.count(t)) };
    countMessage(plain, spy);
    assert.equal(calls, 0, 'a counted message is not counted again');
    const edited: Message = { ...plain, content: 'Reading the whole file now, slowly.' };
    assert.ok(countMessage(edited, counter) > base, 'a changed message (a new object) is counted afresh');
    assert.equal(countMessage(Object.freeze({ ...plain }), counter), base, 'a frozen message is counted too');
    assert.ok(countToolDefinitions([{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' }, source: 'builtin' }], counter) > 5);
  });

  it('a message counted, then frozen, is counted once per encoding, also after a change of model', () => {
    const o200k = getTokenCounter('o200k_base');
    const cl100k = getTokenCounter('cl100k_base');
    let calls = 0;
    const spied = (counter: typeof o200k) => ({ ...counter, encoding: counter.encoding, count: (t: string) => (calls++, counter.count(t)) });
    const message: Message = { id: 'a', role: 'user', kind: 'user', content: 'Count me once per encoding.', agentVisible: true, userVisible: true, createdAt: 1 };
    const first = countMessage(message, spied(o200k));
    Object.freeze(message);
    const other = countMessage(message, spied(cl100k));
    calls = 0;
    for (let i = 0; i < 3; i++) {
      assert.equal(countMessage(message, spied(cl100k)), other);
      assert.equal(countMessage(message, spied(o200k)), first);
    }
    assert.equal(calls, 0, 'no text was counted again');
  });
});

describe('context budget', () => {
  const settings = withSettings();

  it('splits the window into components, effective window and thresholds', () => {
    const budget = new ContextBudget({ contextWindow: 200_000, maxOutputTokens: 10_000, settings });
    budget.setComponents({ system: 3_000, skills: 1_000, tools: 6_000, messages: 50_000, toolResults: 100_000, summaries: 0 });
    assert.equal(budget.effectiveWindow, 190_000);
    assert.equal(budget.used, 160_000);
    assert.equal(budget.remaining, 30_000);
    assert.equal(budget.compactAtTokens, 180_500);
    assert.equal(budget.blockAtTokens, 186_200);
    assert.equal(budget.shouldCompact(), false);
    budget.setComponents({ ...budget.components, messages: 70_500 });
    assert.equal(budget.used, 180_500);
    assert.equal(budget.shouldCompact(), true, 'compacts exactly at 95%');
    assert.equal(budget.isBlocked(), false);
    budget.setComponents({ ...budget.components, messages: 76_200 });
    assert.equal(budget.isBlocked(), true, 'blocks exactly at 98%');
  });

  it('falls back to 128K with a visible warning when the window is unknown', () => {
    const budget = new ContextBudget({ settings });
    assert.equal(budget.contextWindow, 128_000);
    assert.equal(budget.windowIsFallback, true);
    assert.match(budget.warning ?? '', /unknown.*128,000/);
  });

  it('buckets visible messages and leaves hidden ones out', () => {
    const m = (kind: Message['kind'], role: Message['role'], agentVisible = true): Message => ({ id: kind + role, role, kind, content: 'x', agentVisible, userVisible: true, createdAt: 0 });
    const c = new ComponentTally().componentsFor([m('user', 'user'), m('tool_result', 'tool'), m('summary', 'user'), m('user', 'user', false)], () => 10);
    assert.deepEqual(c, { system: 0, skills: 0, tools: 0, messages: 10, toolResults: 10, summaries: 10, plan: 0 });
  });

  it('gives the plan its own bucket: an approved plan, a carried todo list and each todo list the agent wrote, not a record the model never reads', () => {
    const m = (kind: Message['kind'], role: Message['role'], extra: Partial<Message> = {}): Message => ({ id: `${kind}${role}${extra.toolName ?? ''}${extra.agentVisible ?? ''}`, role, kind, content: 'x', agentVisible: true, userVisible: false, createdAt: 0, ...extra });
    const c = new ComponentTally().componentsFor([
      m('plan', 'user', { meta: { plan: 'approved' } }),
      m('plan', 'user', { meta: { plan: 'todos' } }),
      m('tool_result', 'tool', { toolName: 'update_todos' }),
      m('tool_result', 'tool', { toolName: 'read_file' }),
      m('plan', 'user', { agentVisible: false, meta: { plan: 'discarded' } }),
    ], () => 10);
    assert.deepEqual(c, { system: 0, skills: 0, tools: 0, messages: 0, toolResults: 10, summaries: 0, plan: 30 });
  });
});
