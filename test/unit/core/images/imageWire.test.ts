/**
 * Images in each provider's own form, in bodies the APIs accept (checked by the fake servers'
 * checks, which refuse what the real APIs refuse), and the bytes sent equal the body's JSON.
 */
import assert from 'node:assert/strict';
import { imageAttachment, imagePartOf } from '../../../../src/core/images/imageMessages';
import { imageSupport } from '../../../../src/core/images/imageSupport';
import { toolResultMessage, userMessage, assistantMessage } from '../../../../src/core/model/factories';
import { anthropicBodyBytes } from '../../../../src/core/providers/anthropic/anthropicBodyBytes';
import { toAnthropicBody } from '../../../../src/core/providers/anthropic/anthropicRequest';
import { toOpenAIBody } from '../../../../src/core/providers/openai/openaiRequest';
import { responsesBodyChunks } from '../../../../src/core/providers/openai/openaiResponsesBody';
import { toResponsesBody } from '../../../../src/core/providers/openai/openaiResponsesRequest';
import type { ProviderRequest } from '../../../../src/core/providers/types';
import { anthropicRequestProblem } from '../../../fakes/anthropicServer';
import { responsesContentProblem } from '../../../fakes/imageChecks';
import { openaiRequestProblem } from '../../../fakes/openaiServer';
import { gifFile, webpFile } from '../../../support/imageFiles';

const gif = gifFile(40, 30);
const webp = webpFile(120, 80);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** A read_file call on a WebP, its result and the image after it, then a pasted GIF with the next question. */
function request(provider: string): ProviderRequest {
  const call = { id: 'call_1', name: 'read_file', arguments: '{"path":"logo.webp"}' };
  const messages = [
    userMessage('look at the logo'),
    assistantMessage('', [call]),
    toolResultMessage(call, 'logo.webp: WEBP image, 120×80 pixels; the image follows.'),
    imageAttachment(imagePartOf({ bytes: webp, origin: 'tool', label: 'logo.webp', path: 'logo.webp' }, { providerId: provider })),
    imageAttachment(imagePartOf({ bytes: gif, origin: 'pasted', label: 'pasted image' }, { providerId: provider })),
    userMessage('and this one?'),
  ];
  return { model: 'm', system: [{ text: 'You are Tally.' }], messages, tools: [], maxOutputTokens: 1_000 };
}

describe('images on every wire format', () => {
  it('Anthropic: image blocks in the user turn after the tool result, which comes first; the body the API accepts', () => {
    const body = toAnthropicBody(request('anthropic')) as any;
    assert.equal(anthropicRequestProblem({ ...body, model: 'm', max_tokens: 1_000 }), undefined);
    const last = body.messages[2].content as any[];
    assert.deepEqual(last.map((b) => b.type), ['tool_result', 'text', 'image', 'text', 'image', 'text']);
    assert.deepEqual(last[2].source, { type: 'base64', media_type: 'image/webp', data: b64(webp) });
    assert.deepEqual(last[4].source, { type: 'base64', media_type: 'image/gif', data: b64(gif) });
    assert.deepEqual(JSON.parse(new TextDecoder().decode(anthropicBodyBytes(request('anthropic')))).messages, body.messages);
  });

  it('OpenAI Chat Completions: image_url parts with a data URL and detail, after every tool message', () => {
    const body = toOpenAIBody(request('openai'), { maxTokensField: 'max_completion_tokens' }) as any;
    assert.equal(openaiRequestProblem(body), undefined);
    const images = body.messages.filter((m: any) => Array.isArray(m.content));
    assert.deepEqual(images.map((m: any) => m.content[1]), [
      { type: 'image_url', image_url: { url: `data:image/webp;base64,${b64(webp)}`, detail: 'auto' } },
      { type: 'image_url', image_url: { url: `data:image/gif;base64,${b64(gif)}`, detail: 'auto' } },
    ]);
  });

  it('OpenAI Responses: input_image parts whose image_url is the data URL itself', () => {
    const body = toResponsesBody(request('openai')) as any;
    const users = body.input.filter((i: any) => i.role === 'user' && Array.isArray(i.content));
    for (const [n, item] of users.entries()) assert.equal(responsesContentProblem(`input[${n}].content`, item.content), undefined);
    assert.deepEqual(users[0].content[1], { type: 'input_image', image_url: `data:image/webp;base64,${b64(webp)}`, detail: 'auto' });
    assert.equal(users[0].content[0].type, 'input_text');
    assert.deepEqual(JSON.parse(new TextDecoder().decode(responsesBodyChunks(request('openai')).join())).input, body.input);
  });

  it("the fakes refuse what the APIs refuse: a PNG's bytes sent as JPEG, an object as Responses' image_url", () => {
    const body = toAnthropicBody(request('anthropic')) as any;
    body.messages[2].content[2].source.media_type = 'image/png';
    assert.match(anthropicRequestProblem({ ...body, model: 'm', max_tokens: 1_000 }) ?? '', /Image does not match the provided media type image\/png/);
    assert.match(responsesContentProblem('input[0].content', [{ type: 'input_image', image_url: { url: 'data:image/gif;base64,R0lG' } }]) ?? '', /expected an image URL, but got an object/);
  });

  it('which models take images: Claude 3 on, OpenAI but its text-only models, local vision models by name, none through VS Code; the setting wins', () => {
    const ok = (provider: string, model: string, override?: boolean) => imageSupport(provider, model, override).ok;
    assert.deepEqual([ok('anthropic', 'claude-sonnet-4-5'), ok('anthropic', 'claude-2.1'), ok('openai', 'gpt-4o'), ok('openai', 'gpt-5'), ok('openai', 'gpt-3.5-turbo'), ok('openai', 'o3-mini')], [true, false, true, true, false, false]);
    assert.deepEqual([ok('openai-compatible', 'llava:13b'), ok('openai-compatible', 'qwen2.5-vl-7b'), ok('openai-compatible', 'qwen2.5-coder:7b')], [true, true, false]);
    assert.deepEqual([ok('openai-compatible', 'qwen2.5-coder:7b', true), ok('anthropic', 'claude-sonnet-4-5', false)], [true, false]);
    const lm = imageSupport('vscode-lm', 'copilot-gpt-4o');
    assert.equal(lm.ok, false);
    assert.match(lm.ok ? '' : lm.reason, /VS Code's language-model API in this version carries no images/);
  });
});
