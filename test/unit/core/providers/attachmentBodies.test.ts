/**
 * Attachment messages are user content on every wire format: each body is one the API accepts
 * (Anthropic's alternating turns, tool results first in a user turn; OpenAI's tool pairing), with
 * the attached text before the user's words.
 */
import assert from 'node:assert/strict';
import { attachmentMessage, noteMessage } from '../../../../src/core/model/factories';
import type { Message } from '../../../../src/core/model/message';
import { toAnthropicBody } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { anthropicBodyBytes } from '../../../../src/core/providers/anthropic/anthropicBodyBytes';
import { toOpenAIBody } from '../../../../src/core/providers/openai/openaiRequest';
import { responsesBodyChunks } from '../../../../src/core/providers/openai/openaiResponsesBody';
import { toResponsesBody } from '../../../../src/core/providers/openai/openaiResponsesRequest';
import type { ProviderRequest } from '../../../../src/core/providers/types';
import { DYNAMIC_NOTE_ID } from '../../../../src/core/context/requestItems';
import { anthropicRequestProblem } from '../../../fakes/anthropicServer';
import { openaiRequestProblem } from '../../../fakes/openaiServer';

let made = 0;
function message(fields: Partial<Message> & Pick<Message, 'role' | 'kind' | 'content'>): Message {
  made++;
  return { id: `m${made}`, agentVisible: true, userVisible: true, createdAt: made, ...fields };
}

const FILE = attachmentMessage({ kind: 'file', label: 'src/app.ts', path: 'src/app.ts' }, '[Attached file src/app.ts]\nexport const a = 1;');
const PROBLEMS = attachmentMessage({ kind: 'problems', label: 'Problems in app.ts', path: 'src/app.ts' }, '[Attached Problems in app.ts]\nsrc/app.ts:1:14 error: nope');

/** Two turns: the first ends on a tool call whose result is last (a cancelled turn), then attachments, the dynamic note and the question. */
function request(): ProviderRequest {
  const messages: Message[] = [
    message({ role: 'user', kind: 'user', content: 'read it' }),
    message({ role: 'assistant', kind: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a"}' }] }),
    message({ role: 'tool', kind: 'aborted', content: 'cancelled by the user', toolCallId: 'call_1', toolName: 'read_file' }),
    FILE,
    PROBLEMS,
    noteMessage('Active file: src/app.ts', { id: DYNAMIC_NOTE_ID }),
    message({ role: 'user', kind: 'user', content: 'fix the error' }),
  ];
  return { model: 'm', system: [{ text: 'You are Tally.' }], messages, tools: [], maxOutputTokens: 1_000 };
}

describe('attachment messages on every wire format', () => {
  it('Anthropic: one user turn holding the tool result first, then the attachments, then the question; a body the API accepts', () => {
    const body = toAnthropicBody(request()) as { messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }> };
    assert.equal(anthropicRequestProblem({ ...body, model: 'm', max_tokens: 1_000 }), undefined);
    assert.deepEqual(body.messages.map((m) => m.role), ['user', 'assistant', 'user']);
    const last = body.messages[2].content;
    assert.equal(last[0].type, 'tool_result');
    const texts = last.filter((b) => b.type === 'text').map((b) => b.text ?? '');
    assert.ok(texts[0].startsWith('[Attached file src/app.ts]') && texts[1].startsWith('[Attached Problems'), 'attachments in order');
    assert.equal(texts[texts.length - 1], 'fix the error', "the user's words come last");
    // The bytes sent are the JSON of this body.
    assert.deepEqual(JSON.parse(new TextDecoder().decode(anthropicBodyBytes(request()))).messages, body.messages);
  });

  it('OpenAI Chat Completions: attachments are user messages before the question; a body the API accepts', () => {
    const body = toOpenAIBody(request(), { maxTokensField: 'max_completion_tokens' }) as { messages: Array<{ role: string; content: string | null }> };
    assert.equal(openaiRequestProblem(body), undefined);
    const users = body.messages.filter((m) => m.role === 'user').map((m) => m.content ?? '');
    assert.deepEqual(users.map((c) => c.split('\n')[0]), ['read it', '[Attached file src/app.ts]', '[Attached Problems in app.ts]', 'Active file: src/app.ts', 'fix the error']);
  });

  it('OpenAI Responses: attachments are user input items before the question, after the call and its output', () => {
    const body = toResponsesBody(request()) as { input: Array<{ type?: string; role?: string; content?: string; call_id?: string }> };
    const kinds = body.input.map((i) => i.type ?? i.role);
    assert.deepEqual(kinds, ['user', 'function_call', 'function_call_output', 'user', 'user', 'user', 'user']);
    for (const item of body.input) if (item.role) assert.ok(typeof item.content === 'string' && item.content.length > 0, 'no empty message');
    assert.equal(body.input[1].call_id, body.input[2].call_id);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(responsesBodyChunks(request()).join())).input, body.input);
  });
});
