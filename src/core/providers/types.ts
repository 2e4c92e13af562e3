import type { Message, ReasoningBlock, ToolCall } from '../model/message';
import type { ToolDefinition } from '../model/tool';

/** One block of the system prompt; `cacheBreakpoint` marks the end of a cacheable prefix. */
export interface SystemBlock {
  text: string;
  cacheBreakpoint?: boolean;
}

/** What the agent asks a model for. `messages` holds only agent-visible messages, in order. */
export interface ProviderRequest {
  model: string;
  system: SystemBlock[];
  messages: Message[];
  tools: ToolDefinition[];
  maxOutputTokens: number;
  temperature?: number;
  /** How hard the model should think, where it can; absent means the provider's default (off for Anthropic). */
  reasoning?: ReasoningRequest;
}

/** The user's reasoning setting, as a request carries it to the provider. */
export interface ReasoningRequest {
  effort: 'low' | 'medium' | 'high';
  /** Anthropic's budget_tokens for models without adaptive thinking (at least 1,024, below max_tokens). */
  budgetTokens?: number;
}

/**
 * Token usage as the provider reported it. Every field is optional: a server that reports
 * nothing yields no usage event, one that reports part of it yields only that part.
 *
 * `inputTokens` is every prompt token the request carried, cached or not, so it compares with
 * Tally's estimate of the whole request: for Anthropic it is input_tokens + cache_creation_input_tokens
 * + cache_read_input_tokens; OpenAI's prompt_tokens already includes cached tokens.
 */
export interface ReportedUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Prompt tokens served from the provider's cache. */
  cacheReadTokens?: number;
  /** Prompt tokens written to the cache by this request (Anthropic only). */
  cacheWriteTokens?: number;
  /** Output tokens spent on reasoning (part of outputTokens), where the provider reports them. */
  reasoningTokens?: number;
}

/** `refusal`: the model declined; `pause_turn`: a server-side tool paused a long turn, to be continued. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'pause_turn' | 'other';

/**
 * What a provider's stream yields, in this order: text and tool-call progress as they arrive, then
 * (only once the model finished its message) one `tool_call` per complete call, one `usage` when the
 * provider reported any, and `done`. A stream that breaks throws before any `tool_call`, so a call
 * that was cut off is never seen as complete.
 */
export type ProviderEvent =
  | { type: 'text'; text: string }
  /** Readable thinking or reasoning as it streams. */
  | { type: 'reasoning_delta'; text: string }
  /** A complete reasoning block (with its signature or encrypted content), yielded when it ends. */
  | { type: 'reasoning'; block: ReasoningBlock }
  /** A tool call began; `index` is its position among this response's tool calls (0-based). */
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; argumentsDelta: string }
  /** A complete call; `arguments` is the raw text the model produced and may be invalid JSON. */
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'usage'; usage: ReportedUsage }
  /** The request failed before any output and is sent again after `delayMs` (rate limit, 5xx). */
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  | { type: 'done'; stopReason: StopReason };

/** A chat model behind one wire format. `stream` throws `ProviderError` on failure. */
export interface ChatProvider {
  /** 'anthropic', 'openai', 'openai-compatible', … */
  readonly id: string;
  /** Set where one id speaks more than one wire format: 'openai-responses' for OpenAI's Responses API. */
  readonly wireFormat?: string;
  stream(request: ProviderRequest, signal?: AbortSignal): AsyncIterable<ProviderEvent>;
}
