import { describeError } from './classifyError';
import { ProviderError } from './errors';
import type { ChatProvider, ProviderEvent, ProviderRequest } from './types';

/**
 * How much one reply of a model may bring, so a server that never stops (an endless answer,
 * endless thinking, an event that never ends, keep-alive comments for ever) cannot fill the heap
 * or hold a turn without end. Far above what any model's output limit allows: 128K output tokens
 * are about half a million characters.
 */
export interface ReplyLimits {
  /** Characters of one server-sent event (its data lines together, and the line being read). */
  eventChars: number;
  /** Characters of the reply's text. */
  textChars: number;
  /** Characters of the reply's thinking (readable text, signatures). */
  thinkingChars: number;
  /** Characters of the reply's tool calls together (names and arguments). */
  toolCallChars: number;
  /** Time one reply may take, from sending the request to its last event. */
  replyMs: number;
}

export const DEFAULT_REPLY_LIMITS: Readonly<ReplyLimits> = {
  eventChars: 16 * 1024 * 1024,
  textChars: 4 * 1024 * 1024,
  thinkingChars: 4 * 1024 * 1024,
  toolCallChars: 4 * 1024 * 1024,
  replyMs: 30 * 60 * 1000,
};

export function replyLimits(overrides?: Partial<ReplyLimits>): ReplyLimits {
  return { ...DEFAULT_REPLY_LIMITS, ...overrides };
}

const chars = (n: number) => `${n.toLocaleString('en-US')} characters`;

function duration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}

/** What each limit is called in the error that names it. */
export const LIMIT_WORDS = {
  eventChars: (n: number) => `one event of the stream passed ${chars(n)}`,
  textChars: (n: number) => `the reply's text passed ${chars(n)}`,
  thinkingChars: (n: number) => `the reply's thinking passed ${chars(n)}`,
  toolCallChars: (n: number) => `the reply's tool calls passed ${chars(n)}`,
  replyMs: (n: number) => `the reply took longer than ${duration(n)}`,
} as const;

/** The error that ends a reply at one of the limits: not retried (the same server would do it again). */
export function replyLimitError(provider: string, limit: keyof ReplyLimits, value: number): ProviderError {
  return new ProviderError('reply_limit', describeError(provider, 'reply_limit', `${LIMIT_WORDS[limit](value)}, Tally's limit for one reply; the rest was not read`), { retryable: false, code: limit });
}

/** Counts what a reply brought and throws the limit's error the moment one is passed. */
export class ReplyMeter {
  private text = 0;
  private thinking = 0;
  private toolCalls = 0;

  constructor(
    private readonly limits: ReplyLimits,
    private readonly provider: string,
  ) {}

  addText(n: number): void {
    this.text += n;
    if (this.text > this.limits.textChars) throw replyLimitError(this.provider, 'textChars', this.limits.textChars);
  }

  addThinking(n: number): void {
    this.thinking += n;
    if (this.thinking > this.limits.thinkingChars) throw replyLimitError(this.provider, 'thinkingChars', this.limits.thinkingChars);
  }

  addToolCall(n: number): void {
    this.toolCalls += n;
    if (this.toolCalls > this.limits.toolCallChars) throw replyLimitError(this.provider, 'toolCallChars', this.limits.toolCallChars);
  }

  /** Counts an event a provider yields. Complete calls and blocks were counted by their deltas when they streamed. */
  observe(event: ProviderEvent, streamedCalls: boolean): void {
    switch (event.type) {
      case 'text':
        this.addText(event.text.length);
        break;
      case 'reasoning_delta':
        this.addThinking(event.text.length);
        break;
      case 'tool_call_start':
        this.addToolCall(event.name.length + event.id.length + 16);
        break;
      case 'tool_call_delta':
        this.addToolCall(event.argumentsDelta.length);
        break;
      case 'tool_call':
        // A provider that gives whole calls only (VS Code's language models) is counted here.
        if (!streamedCalls) this.addToolCall(event.call.arguments.length + event.call.name.length + event.call.id.length);
        break;
      default:
        break;
    }
  }
}

/** Passes a provider's events on, counting them against the limits. */
export async function* meteredEvents(events: AsyncIterable<ProviderEvent>, meter: ReplyMeter): AsyncGenerator<ProviderEvent> {
  let streamedCalls = false;
  for await (const event of events) {
    if (event.type === 'tool_call_start') streamedCalls = true;
    meter.observe(event, streamedCalls);
    yield event;
  }
}

/**
 * A provider whose replies are held to the limits by this wrapper: for providers that do not speak
 * HTTP themselves (VS Code's language models), whose replies Tally sees only as parts. The time
 * limit cancels the request through the signal the provider was given.
 */
export function withReplyLimits(provider: ChatProvider, label: string, overrides?: Partial<ReplyLimits>): ChatProvider {
  const limits = replyLimits(overrides);
  return {
    id: provider.id,
    ...(provider.wireFormat ? { wireFormat: provider.wireFormat } : {}),
    async *stream(request: ProviderRequest, signal?: AbortSignal): AsyncGenerator<ProviderEvent> {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) controller.abort();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, limits.replyMs);
      const late = () => timedOut && !signal?.aborted;
      try {
        for await (const event of meteredEvents(provider.stream(request, controller.signal), new ReplyMeter(limits, label))) {
          if (late()) break;
          yield event;
        }
        if (late()) throw replyLimitError(label, 'replyMs', limits.replyMs);
      } catch (error) {
        if (late()) throw replyLimitError(label, 'replyMs', limits.replyMs);
        throw error;
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}
