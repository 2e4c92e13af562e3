import type { ProviderEvent } from '../types';

/**
 * Reasoning that OpenAI-compatible servers stream beside the answer in Chat Completions deltas:
 * `reasoning_content` (DeepSeek, vLLM) or `reasoning` (Ollama, newer vLLM, OpenRouter). It becomes
 * `reasoning_delta` events as it streams and one `reasoning` block (format 'openai-chat') when the
 * answer or a tool call starts, or the message ends. Such a block is sent back (openaiRequest.ts)
 * only with the tool calls it led to, as DeepSeek's thinking mode requires.
 */
export class ChatReasoning {
  private text = '';

  /** The reasoning text a delta carries, if any. */
  deltaOf(delta: Record<string, unknown>): string | undefined {
    const value = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : typeof delta.reasoning === 'string' ? delta.reasoning : undefined;
    if (!value) return undefined;
    this.text += value;
    return value;
  }

  /** The block of the reasoning streamed so far, once (nothing when there was none). */
  *end(): Generator<ProviderEvent> {
    if (!this.text) return;
    const text = this.text;
    this.text = '';
    yield { type: 'reasoning', block: { format: 'openai-chat', text } };
  }
}
