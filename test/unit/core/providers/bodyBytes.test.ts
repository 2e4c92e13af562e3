import { strict as assert } from 'assert';
import type { Message } from '../../../../src/core/model/message';
import { DYNAMIC_NOTE_ID } from '../../../../src/core/prompt/promptSections';
import { AnthropicBodyBuilder, anthropicBodyBytes } from '../../../../src/core/providers/anthropic/anthropicBodyBytes';
import { toAnthropicBody, type AnthropicRequestOptions } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { OpenAIBodyBuilder } from '../../../../src/core/providers/openai/openaiBodyBytes';
import { toOpenAIBody, type OpenAIRequestOptions } from '../../../../src/core/providers/openai/openaiRequest';
import type { ProviderRequest } from '../../../../src/core/providers/types';
import { message, READ_FILE, request, toolCall } from './harness';

/** What fetch put on the wire for the body before: the JSON text of the body object, as UTF-8. */
function stringifiedBytes(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body), 'utf8');
}

function assertSameBytes(sent: Uint8Array, body: unknown, what: string): void {
  const expected = stringifiedBytes(body);
  const actual = Buffer.from(sent.buffer, sent.byteOffset, sent.byteLength);
  if (actual.equals(expected)) return;
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  assert.fail(`${what}: bytes differ at ${at} of ${expected.length}: sent …${actual.subarray(Math.max(0, at - 60), at + 60).toString()}… expected …${expected.subarray(Math.max(0, at - 60), at + 60).toString()}…`);
}

/** Tool arguments a model really produces: empty, blank, not JSON, not an object, spaced JSON kept as written, escapes, odd Unicode. */
const ODD_ARGUMENTS = ['', '   ', 'not json', '[1,2]', '"a string"', 'null', '{ "path" : "src/a.ts" ,"n":1 }', '{"text":"line\\nbreak\\u2028sep"}', '{"emoji":"👩🏽‍💻","cjk":"漢字"}', '{"half":"\ud800"}', '{"path":"a.ts"', '{"a":{"b":[1,{"c":null}]}}'];

/**
 * A session that grows as a real one does, the same message objects handed out with every request:
 * user words, assistant steps with tool calls (odd arguments, odd ids, parallel calls), results
 * (empty, errors, aborted), notes, a summary, and per request a new dynamic note before the latest
 * user message so Anthropic's breakpoints move.
 */
function growingSession(): Array<{ messages: Message[]; system: ProviderRequest['system'] }> {
  const history: Message[] = [];
  const requests: Array<{ messages: Message[]; system: ProviderRequest['system'] }> = [];
  const system = (n: number): ProviderRequest['system'] => [
    { text: 'You are Tally, a coding agent.', cacheBreakpoint: true },
    { text: '' },
    { text: `Instructions from AGENTS.md, version ${n % 3}.`, cacheBreakpoint: true },
    { text: 'Skill: tests.', cacheBreakpoint: true },
    { text: `Active file: src/file${n}.ts`, cacheBreakpoint: n % 2 === 0 },
  ];
  for (let step = 0; step < 12; step++) {
    if (step % 4 === 0) history.push(message({ role: 'user', content: step === 4 ? '   ' : `Task ${step}: fix "quotes", back\\slashes, tabs\t and 🚀 — é ${'\ud83d'}` }));
    if (step === 6) history.push(message({ role: 'system', kind: 'summary', content: 'Summary of the earlier steps.' }));
    const args = ODD_ARGUMENTS[step % ODD_ARGUMENTS.length];
    const calls = [toolCall(step === 3 ? 'call.with:odd/ids' : `call_${step}`, 'read_file', args)];
    if (step % 3 === 1) calls.push(toolCall(`call_${step}_b`, 'run_command', ODD_ARGUMENTS[(step + 5) % ODD_ARGUMENTS.length]));
    history.push(message({ role: 'assistant', content: step % 5 === 2 ? '' : `Step ${step}: reading.  `, toolCalls: calls }));
    // A note that lands between the calls and their results: the results still go first in the user turn.
    if (step === 7) history.push(message({ role: 'user', kind: 'note', content: 'The user changed the active file.' }));
    calls.forEach((call, i) => {
      const content = step === 2 && i === 0 ? '' : `output of ${call.name} ${step}\n${'x'.repeat(step * 10)}`;
      history.push(message({ role: 'tool', content, toolCallId: call.id, meta: step % 4 === 1 && i === 0 ? { isError: true } : undefined, kind: step === 5 ? 'aborted' : 'tool_result' }));
    });
    if (step % 5 === 3) history.push(message({ role: 'user', kind: 'note', content: 'Context: 40% used.' }));
    if (step % 4 === 3) history.push(message({ role: 'assistant', content: `Done with part ${step}.\n\n` }));
    // The prompt puts a new dynamic note before the latest user message of every request.
    const lastUser = history.map((m) => m.role === 'user' && m.kind === 'user').lastIndexOf(true);
    const dynamic = message({ role: 'user', kind: 'note', id: DYNAMIC_NOTE_ID, content: `Now: step ${step}.` });
    const messages = step % 2 === 0 ? [...history.slice(0, lastUser), dynamic, ...history.slice(lastUser)] : [...history];
    // Some requests end with an assistant message (a prefill) whose text ends in whitespace.
    if (step % 6 === 5) messages.push(message({ role: 'assistant', content: 'Continuing from here:  \n' }));
    requests.push({ messages, system: system(step) });
  }
  return requests;
}

describe('request bodies built from cached per-message bytes', () => {
  const openAIOptions: OpenAIRequestOptions[] = [{ maxTokensField: 'max_tokens' }, { maxTokensField: 'max_completion_tokens', includeUsage: false }];
  const anthropicOptions: AnthropicRequestOptions[] = [{}, { cacheConversation: false }];

  it('OpenAI Chat Completions: every request of a growing session is byte for byte what JSON.stringify of the body object gave', () => {
    for (const options of openAIOptions) {
      // One builder per provider, as the provider keeps it: each body starts from the last one's bytes.
      const bodies = new OpenAIBodyBuilder();
      growingSession().forEach(({ messages, system }, i) => {
        // Some requests have no system text, so the first message opens the array (no comma before it).
        const req = request(messages, { system: i % 5 === 3 || i % 5 === 4 ? [] : system, tools: i % 3 === 2 ? [] : [READ_FILE], temperature: i % 4 === 1 ? 0.2 : undefined });
        assertSameBytes(bodies.bytes(req, options), toOpenAIBody(req, options), `request ${i} (${options.maxTokensField})`);
        // A summary request in between (other messages) does not disturb the next body.
        if (i === 6) {
          const summary = request([message({ role: 'user', content: 'Summarize.' })], { system: [] });
          assertSameBytes(bodies.bytes(summary, options), toOpenAIBody(summary, options), 'summary request');
        }
      });
    }
  });

  it('Anthropic Messages: byte for byte the same while cache_control moves from block to block between requests', () => {
    let moved = 0;
    let previous: string[] = [];
    for (const options of anthropicOptions) {
      growingSession().forEach(({ messages, system }, i) => {
        const req = request(messages, { system, tools: i % 3 === 2 ? [] : [READ_FILE], temperature: i % 4 === 1 ? 0 : undefined });
        const body = toAnthropicBody(req, options);
        assertSameBytes(anthropicBodyBytes(req, options), body, `request ${i} (cacheConversation ${options.cacheConversation ?? true})`);
        const marked = JSON.stringify(body.messages).split('"cache_control"').length - 1;
        const where = (body.messages as Array<{ content: Array<{ cache_control?: unknown; text?: string; tool_use_id?: string; id?: string }> }>).flatMap((turn) => turn.content.filter((b) => b.cache_control).map((b) => b.text ?? b.tool_use_id ?? b.id ?? ''));
        if (options.cacheConversation !== false && previous.length && where.some((w) => !previous.includes(w))) moved++;
        previous = where;
        if (options.cacheConversation === false) assert.equal(marked, 0);
      });
    }
    assert.ok(moved >= 5, `the breakpoints moved between requests (${moved} times)`);
  });

  it('Anthropic Messages, one builder for the session: each body starts from the turns of the last one and is still byte for byte the same', () => {
    for (const options of anthropicOptions) {
      const bodies = new AnthropicBodyBuilder();
      // A body may still be on its way while later ones are built: the bytes it holds never change.
      const earlier: Array<{ chunks: ReturnType<AnthropicBodyBuilder['chunks']>; bytes: Buffer }> = [];
      growingSession().forEach(({ messages, system }, i) => {
        const req = request(messages, { system, tools: i % 3 === 2 ? [] : [READ_FILE] });
        const chunks = bodies.chunks(req, options);
        assertSameBytes(chunks.join(), toAnthropicBody(req, options), `request ${i} (cacheConversation ${options.cacheConversation ?? true})`);
        earlier.forEach((body, j) => assert.ok(Buffer.from(body.chunks.join()).equals(body.bytes), `body ${j}'s bytes unchanged while request ${i} was built`));
        earlier.push({ chunks, bytes: Buffer.from(chunks.join()) });
        // The same request again (a retry), then a summary request in between (other messages): the next body is still right.
        assertSameBytes(bodies.chunks(req, options).join(), toAnthropicBody(req, options), `request ${i} again`);
        if (i === 6) {
          const summary = request([message({ role: 'user', content: 'Summarize.' })], { system: [] });
          assertSameBytes(bodies.chunks(summary, options).join(), toAnthropicBody(summary, options), 'summary request');
        }
      });
    }
  });

  it('Anthropic Messages, one builder: bodies sent before a compaction keep their bytes while later bodies are built', () => {
    const step = (n: number, text = `Step ${n}.`) => {
      const call = toolCall(`call_${n}`, 'read_file', { path: `${n}.ts` });
      return [message({ role: 'assistant', content: text, toolCalls: [call] }), message({ role: 'tool', content: `output ${n}`, toolCallId: call.id })];
    };
    const history = [message({ role: 'user', content: 'Fix it.' }), ...[1, 2, 3, 4, 5, 6].flatMap((n) => step(n))];
    const bodies = new AnthropicBodyBuilder();
    const sent = [request(history), request([...history, ...step(7)])].map((req) => {
      const chunks = bodies.chunks(req);
      return { chunks, bytes: Buffer.from(chunks.join()) };
    });
    // A compaction replaced the early steps with a summary: the next bodies hold other turns where the first ones had theirs.
    const compacted = [history[0], message({ role: 'user', kind: 'summary', content: 'Summary: steps 1 to 4 done.' }), ...history.slice(9), ...step(7)];
    for (const req of [request(compacted), request([...compacted, ...step(8, 'A much longer step that takes the place of older bytes.')])]) {
      assertSameBytes(bodies.chunks(req).join(), toAnthropicBody(req), 'after the compaction');
      sent.forEach((body, j) => assert.ok(Buffer.from(body.chunks.join()).equals(body.bytes), `body ${j}'s bytes unchanged`));
    }
  });

  it('Anthropic Messages, one builder: a result whose error flag is replaced on the same object is sent as it is now', () => {
    const tool = message({ role: 'tool', content: 'failed', toolCallId: 'call_1' });
    const messages = [message({ role: 'user', content: 'Read a.' }), message({ role: 'assistant', content: '', toolCalls: [toolCall('call_1', 'read_file', { path: 'a' })] }), tool, message({ role: 'assistant', content: 'It failed.' }), message({ role: 'user', content: 'Try again.' })];
    const bodies = new AnthropicBodyBuilder();
    bodies.chunks(request(messages));
    (tool as { meta?: Message['meta'] }).meta = { isError: true };
    const next = request([...messages, message({ role: 'assistant', content: 'Retrying.' }), message({ role: 'user', content: 'Go on.' })]);
    assertSameBytes(bodies.chunks(next).join(), toAnthropicBody(next), 'after the flag changed');
  });

  it('Anthropic Messages: both conversation breakpoints on one block leave three for the system blocks, as before', () => {
    // Nothing from the dynamic note on has a block of its own, so both breakpoints land on the assistant's text.
    const messages = [
      message({ role: 'user', content: 'Hello' }),
      message({ role: 'assistant', content: 'Hi.' }),
      message({ role: 'user', kind: 'note', id: DYNAMIC_NOTE_ID, content: '' }),
      message({ role: 'user', content: '   ' }),
      message({ role: 'assistant', content: ' ' }),
    ];
    const system = [1, 2, 3, 4].map((n) => ({ text: `block ${n}`, cacheBreakpoint: true }));
    const req = request(messages, { system });
    const body = toAnthropicBody(req) as { system: Array<{ cache_control?: unknown }> };
    assert.equal(body.system.filter((b) => b.cache_control).length, 3);
    assertSameBytes(anthropicBodyBytes(req), body, 'shared breakpoint');
  });

  it('a message whose field is replaced on the same object is sent as it is now, not as first cached', () => {
    const tool = message({ role: 'tool', content: 'a long output', toolCallId: 'call_1' });
    const messages = [message({ role: 'user', content: 'Read a.' }), message({ role: 'assistant', content: '', toolCalls: [toolCall('call_1', 'read_file', { path: 'a' })] }), tool];
    const req = request(messages);
    const bodies = new OpenAIBodyBuilder();
    bodies.bytes(req, { maxTokensField: 'max_tokens' });
    anthropicBodyBytes(req);
    (tool as { content: string }).content = '[output offloaded: ref r1]';
    (tool as { meta?: Message['meta'] }).meta = { isError: true };
    assertSameBytes(bodies.bytes(req, { maxTokensField: 'max_tokens' }), toOpenAIBody(req, { maxTokensField: 'max_tokens' }), 'OpenAI after the change');
    assertSameBytes(anthropicBodyBytes(req), toAnthropicBody(req), 'Anthropic after the change');
    assert.ok(Buffer.from(bodies.bytes(req, { maxTokensField: 'max_tokens' })).toString().includes('output offloaded'));
  });
});
