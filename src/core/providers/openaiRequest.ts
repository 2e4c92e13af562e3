import type { Message } from '../model/message';
import { argumentsAsJsonText } from './toolArguments';
import type { ProviderRequest } from './types';

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

type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

function chatMessageOf(message: Message): ChatMessage | undefined {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (!calls.length && !message.content.trim()) return undefined;
      const out: ChatMessage = { role: 'assistant', content: message.content || null };
      if (calls.length) {
        // Servers such as Ollama parse history arguments as JSON, so invalid ones are wrapped.
        out.tool_calls = calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: argumentsAsJsonText(call.arguments) } }));
      }
      return out;
    }
    case 'system':
      return { role: 'system', content: message.content };
    default:
      return message.content.trim() ? { role: 'user', content: message.content } : undefined;
  }
}

/** The Chat Completions body: one system message first (blocks joined), the conversation, tools. */
export function toOpenAIBody(request: ProviderRequest, options: OpenAIRequestOptions): Record<string, unknown> {
  const messages: ChatMessage[] = [];
  const system = request.system.map((b) => b.text).filter(Boolean).join('\n\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const message of request.messages) {
    const mapped = chatMessageOf(message);
    if (mapped) messages.push(mapped);
  }
  const body: Record<string, unknown> = {
    model: request.model,
    messages,
    stream: true,
    [options.maxTokensField]: request.maxOutputTokens,
  };
  if (options.includeUsage ?? true) body.stream_options = { include_usage: true };
  if (request.tools.length) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: { type: 'object', ...tool.inputSchema } },
    }));
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}
