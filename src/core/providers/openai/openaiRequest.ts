import type { Message } from '../../model/message';
import { argumentsAsJsonText } from '../toolArguments';
import type { ProviderRequest } from '../types';
import { openAITool } from '../toolWireForms';
import { chatImagePart, type ChatContentPart } from '../../images/imageWire';

/**
 * Which field carries the output limit. OpenAI's own API wants `max_completion_tokens` (its
 * reasoning models reject `max_tokens`); OpenAI-compatible servers (Ollama, LM Studio, older vLLM)
 * know `max_tokens`.
 */
export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

export interface OpenAIRequestOptions {
  maxTokensField: MaxTokensField;
  /** Ask for the final usage chunk (`stream_options.include_usage`). Default true. */
  includeUsage?: boolean;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'user'; content: ChatContentPart[] }
  | { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

/**
 * The reasoning an OpenAI-compatible server streamed before this message's tool calls, to send back
 * as `reasoning_content`: DeepSeek's thinking mode requires it for a turn with tool calls (a 400
 * without it) and ignores it elsewhere (https://api-docs.deepseek.com/guides/thinking_mode). A
 * message without tool calls sends none, nor does reasoning from another wire format.
 */
function reasoningToReturn(message: Message): string | undefined {
  if (!message.toolCalls?.length) return undefined;
  const text = (message.reasoning ?? []).filter((b) => b.format === 'openai-chat' && b.text).map((b) => b.text).join('\n\n');
  return text || undefined;
}

/** A message as Chat Completions carries it; undefined for one that is left out (empty). */
export function chatMessageOf(message: Message): ChatMessage | undefined {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (!calls.length && !message.content.trim()) return undefined;
      const out: ChatMessage = { role: 'assistant', content: message.content || null };
      const reasoning = reasoningToReturn(message);
      if (reasoning) out.reasoning_content = reasoning;
      if (calls.length) {
        // Servers such as Ollama parse history arguments as JSON, so invalid ones are wrapped.
        out.tool_calls = calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: argumentsAsJsonText(call.arguments) } }));
      }
      return out;
    }
    case 'system':
      return { role: 'system', content: message.content };
    default:
      if (message.images?.length) return { role: 'user', content: [...(message.content.trim() ? [{ type: 'text' as const, text: message.content }] : []), ...message.images.map(chatImagePart)] };
      return message.content.trim() ? { role: 'user', content: message.content } : undefined;
  }
}

/** The system message of the body: the system blocks joined, or undefined when there is no text. */
export function systemChatMessage(request: ProviderRequest): ChatMessage | undefined {
  const system = request.system.map((b) => b.text).filter(Boolean).join('\n\n');
  return system ? { role: 'system', content: system } : undefined;
}

/** The fields of the body after `messages`, in the order they are sent. */
export function openAIFieldsAfterMessages(request: ProviderRequest, options: OpenAIRequestOptions): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    stream: true,
    [options.maxTokensField]: request.maxOutputTokens,
  };
  if (options.includeUsage ?? true) fields.stream_options = { include_usage: true };
  if (request.tools.length) {
    fields.tools = request.tools.map(openAITool);
  }
  if (request.temperature !== undefined) fields.temperature = request.temperature;
  return fields;
}

/**
 * The Chat Completions body: one system message first (blocks joined), the conversation, tools.
 * What is sent is built as bytes by openaiBodyBytes.ts and equals JSON.stringify of this.
 */
export function toOpenAIBody(request: ProviderRequest, options: OpenAIRequestOptions): Record<string, unknown> {
  const messages: ChatMessage[] = [];
  const system = systemChatMessage(request);
  if (system) messages.push(system);
  for (const message of request.messages) {
    const mapped = chatMessageOf(message);
    if (mapped) messages.push(mapped);
  }
  return { model: request.model, messages, ...openAIFieldsAfterMessages(request, options) };
}
