/**
 * The OpenAI Responses API request, as Tally sends it (POST `${baseUrl}/responses`).
 *
 * Facts this file and openaiResponses.ts rely on, from OpenAI's reference
 * (https://developers.openai.com/api/reference/resources/responses/methods/create and
 * https://developers.openai.com/api/reference/resources/responses/streaming-events), checked against
 * recordings of the real API (test/conformance/openaiResponses/recordings, with their sources):
 * - `instructions` carries the system prompt; `input` is a list of items in conversation order:
 *   `{role:"user"|"assistant"|"system", content}` messages, `{type:"function_call", call_id, name,
 *   arguments}` for a call the model made, `{type:"function_call_output", call_id, output}` for its
 *   result (matched by `call_id`), `{type:"reasoning", id, encrypted_content, summary}` for reasoning.
 * - With `store: false` nothing is kept on OpenAI's side, so an item's `id` names nothing there: a
 *   reasoning item is sent back only with its `encrypted_content`, asked for with
 *   `include: ["reasoning.encrypted_content"]`, and placed before the calls or message it preceded.
 *   Models that do not reason reject that include ("Encrypted content is not supported with this
 *   model"), so it is sent only to reasoning models or when an effort is asked for.
 * - `reasoning: {effort, summary: "auto"}` sets the effort and asks for readable summaries.
 * - Tools are `{type:"function", name, description, parameters}` (flat, not nested under `function`).
 * - The output limit is `max_output_tokens`. Reasoning models refuse `temperature` (400, "Unsupported
 *   parameter: 'temperature' is not supported with this model", recorded by vercel/ai).
 * - Streaming events (no `[DONE]` marker): `response.output_item.added` / `.done` (the item; a
 *   reasoning item's encrypted content is complete only in `.done`), `response.output_text.delta`,
 *   `response.reasoning_summary_text.delta`, `response.function_call_arguments.delta` (by
 *   `output_index`/`item_id`), then one of `response.completed`, `response.incomplete` (with
 *   `incomplete_details.reason`: `max_output_tokens` or `content_filter`) or `response.failed` (with
 *   `response.error`); an `error` event carries `{type, code, message}` (at top level or under `error`).
 * - `response.usage`: `input_tokens` (cached included), `input_tokens_details.cached_tokens`,
 *   `output_tokens` (reasoning included), `output_tokens_details.reasoning_tokens`.
 */
import { responsesTool } from '../toolWireForms';
import type { Message, ReasoningBlock } from '../../model/message';
import { argumentsAsJsonText } from '../toolArguments';
import type { ProviderRequest } from '../types';
import { responsesImagePart, type ResponsesContentPart } from '../../images/imageWire';

export type ResponsesInputItem =
  | { role: 'user' | 'assistant' | 'system'; content: string }
  | { role: 'user'; content: ResponsesContentPart[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string }
  | { type: 'reasoning'; id: string; encrypted_content: string; summary: Array<{ type: 'summary_text'; text: string }> };

/** Reasoning that can be sent back with `store: false`: produced by the Responses API, with its encrypted content. */
function returnableReasoning(blocks: readonly ReasoningBlock[] | undefined): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const block of blocks ?? []) {
    if (block.format !== 'openai-responses' || !block.itemId || !block.encryptedContent) continue;
    items.push({ type: 'reasoning', id: block.itemId, encrypted_content: block.encryptedContent, summary: block.text ? [{ type: 'summary_text', text: block.text }] : [] });
  }
  return items;
}

/** A message as Responses input items, in the order the model produced them (reasoning, text, calls). */
export function responsesItemsOf(message: Message): ResponsesInputItem[] {
  switch (message.role) {
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.toolCallId ?? '', output: message.content }];
    case 'assistant': {
      const items = returnableReasoning(message.reasoning);
      if (message.content.trim()) items.push({ role: 'assistant', content: message.content });
      for (const call of message.toolCalls ?? []) items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: argumentsAsJsonText(call.arguments) });
      // Reasoning alone, with no answer or call after it, is not accepted: leave it out.
      return items.some((item) => !('type' in item) || item.type !== 'reasoning') ? items : [];
    }
    case 'system':
      return [{ role: 'system', content: message.content }];
    default:
      if (message.images?.length) return [{ role: 'user', content: [...(message.content.trim() ? [{ type: 'input_text' as const, text: message.content }] : []), ...message.images.map(responsesImagePart)] }];
      return message.content.trim() ? [{ role: 'user', content: message.content }] : [];
  }
}

/** Models that reason (o-series, gpt-5 and its codex models, not the gpt-5 chat models). */
export function isReasoningModel(model: string): boolean {
  const name = model.toLowerCase().replace(/^.*\//, '');
  if (/-chat(-|$)/.test(name)) return false;
  return /^(o\d|gpt-5|codex)/.test(name);
}

/** The system prompt: the blocks joined, or undefined when there is no text. */
export function responsesInstructions(request: ProviderRequest): string | undefined {
  const text = request.system.map((b) => b.text).filter(Boolean).join('\n\n');
  return text || undefined;
}

/** The fields of the body after `input`, in the order they are sent. */
export function responsesFieldsAfterInput(request: ProviderRequest): Record<string, unknown> {
  const reasons = Boolean(request.reasoning) || isReasoningModel(request.model);
  const fields: Record<string, unknown> = { stream: true, store: false, max_output_tokens: request.maxOutputTokens };
  if (reasons) fields.include = ['reasoning.encrypted_content'];
  if (request.reasoning) fields.reasoning = { effort: request.reasoning.effort, summary: 'auto' };
  else if (reasons) fields.reasoning = { summary: 'auto' };
  if (request.tools.length) {
    fields.tools = request.tools.map(responsesTool);
  }
  // Reasoning models refuse it ("Unsupported parameter: 'temperature' is not supported with this model").
  if (request.temperature !== undefined && !isReasoningModel(request.model)) fields.temperature = request.temperature;
  return fields;
}

/** The whole body as a value; what is sent is built as bytes by openaiResponsesBody.ts and equals JSON.stringify of this. */
export function toResponsesBody(request: ProviderRequest): Record<string, unknown> {
  const instructions = responsesInstructions(request);
  return {
    model: request.model,
    ...(instructions ? { instructions } : {}),
    input: request.messages.flatMap(responsesItemsOf),
    ...responsesFieldsAfterInput(request),
  };
}
