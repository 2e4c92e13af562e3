import { nextTurn } from '../nextTurn';
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
  /**
   * Characters of the reply's thinking that are kept (readable text, signatures). Thinking a
   * signature covers (Anthropic's) is kept whole or the reply ends with an error: the signature
   * only holds for the whole text, and a tool-use turn must send it back unchanged. Other thinking
   * past this is read and counted but not kept: the reply's answer and calls still are, and the
   * kept block says how much was left out (`cutChars`).
   */
  thinkingChars: number;
  /** Characters of thinking read in all, kept or not: past it the reply ends with an error (a server thinking without end). */
  thinkingReadChars: number;
  /** Characters of the reply's tool calls together (names and arguments). */
  toolCallChars: number;
  /** Time one reply may take, from sending the request to its last event. */
  replyMs: number;
}

export const DEFAULT_REPLY_LIMITS: Readonly<ReplyLimits> = {
  eventChars: 16 * 1024 * 1024,
  textChars: 4 * 1024 * 1024,
  thinkingChars: 4 * 1024 * 1024,
  thinkingReadChars: 64 * 1024 * 1024,
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
  thinkingReadChars: (n: number) => `the reply's thinking passed ${chars(n)}`,
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
  /** Readable thinking of the block streaming now: the pieces passed on, and how much was read in all. */
  private blockPieces: string[] = [];
  private blockKept = 0;
  private blockRead = 0;

  /** `signedThinking`: the provider's thinking carries signatures, so it is kept whole or not at all. */
  constructor(
    private readonly limits: ReplyLimits,
    private readonly provider: string,
    private readonly signedThinking = false,
  ) {}

  addText(n: number): void {
    this.text += n;
    if (this.text > this.limits.textChars) throw replyLimitError(this.provider, 'textChars', this.limits.textChars);
  }

  addThinking(n: number): void {
    this.thinking += n;
    if (this.signedThinking && this.thinking > this.limits.thinkingChars) throw replyLimitError(this.provider, 'thinkingChars', this.limits.thinkingChars);
    if (this.thinking > this.limits.thinkingReadChars) throw replyLimitError(this.provider, 'thinkingReadChars', this.limits.thinkingReadChars);
  }

  addToolCall(n: number): void {
    this.toolCalls += n;
    if (this.toolCalls > this.limits.toolCallChars) throw replyLimitError(this.provider, 'toolCallChars', this.limits.toolCallChars);
  }

  /** How much of `text` (readable thinking streamed now) is kept: all of it until the thinking limit, none after. */
  private keptThinking(text: string): string {
    const room = Math.max(0, this.limits.thinkingChars - this.thinking);
    this.addThinking(text.length);
    this.blockRead += text.length;
    // Not ending inside a surrogate pair.
    const end = text.length <= room ? text.length : room > 0 && isHighSurrogate(text.charCodeAt(room - 1)) ? room - 1 : room;
    const kept = end === text.length ? text : text.slice(0, end);
    this.blockKept += end;
    if (kept) this.blockPieces.push(kept);
    return kept;
  }

  /** A finished block as it is kept: thinking past the limit left out of its text, and counted. */
  private keptBlock(event: Extract<ProviderEvent, { type: 'reasoning' }>): ProviderEvent {
    const [pieces, kept, read] = [this.blockPieces, this.blockKept, this.blockRead];
    this.blockPieces = [];
    this.blockKept = this.blockRead = 0;
    if (kept === read || event.block.signature || event.block.redactedData !== undefined) return event;
    // The kept pieces joined, rather than a slice of the block's text: that text is the whole
    // thinking (tens of megabytes, gathered piece by piece), and slicing it would flatten all of it.
    return { type: 'reasoning', block: { ...event.block, text: pieces.join(''), cutChars: read - kept } };
  }

  /**
   * Counts an event a provider yields, and gives what is passed on: the event, or its kept part
   * (undefined: nothing of it is kept). Complete calls and blocks were counted by their deltas when
   * they streamed.
   */
  observe(event: ProviderEvent, streamedCalls: boolean): ProviderEvent | undefined {
    switch (event.type) {
      case 'text':
        this.addText(event.text.length);
        return event;
      case 'reasoning_delta': {
        const text = this.keptThinking(event.text);
        return text === event.text ? event : text ? { type: 'reasoning_delta', text } : undefined;
      }
      case 'reasoning':
        return this.keptBlock(event);
      case 'tool_call_start':
        this.addToolCall(event.name.length + event.id.length + 16);
        return event;
      case 'tool_call_delta':
        this.addToolCall(event.argumentsDelta.length);
        return event;
      case 'tool_call':
        // A provider that gives whole calls only (VS Code's language models) is counted here.
        if (!streamedCalls) this.addToolCall(event.call.arguments.length + event.call.name.length + event.call.id.length);
        return event;
      default:
        return event;
    }
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Characters of a reply handled between two turns of the event loop. A reply read faster than it
 * is handled (a local server, a burst after a stall) is otherwise decoded, passed on and drawn
 * without a turn: 4 MB of thinking held the extension host ~0.2 s.
 */
const CHARS_PER_TURN = 256 * 1024;

/** Passes a provider's events on, counting them against the limits (thinking past its limit is not passed on). */
export async function* meteredEvents(events: AsyncIterable<ProviderEvent>, meter: ReplyMeter): AsyncGenerator<ProviderEvent> {
  let streamedCalls = false;
  let sinceTurn = 0;
  for await (const event of events) {
    if (event.type === 'tool_call_start') streamedCalls = true;
    const kept = meter.observe(event, streamedCalls);
    sinceTurn += eventChars(event);
    if (sinceTurn >= CHARS_PER_TURN) {
      sinceTurn = 0;
      await nextTurn();
    }
    if (kept) yield kept;
  }
}

function eventChars(event: ProviderEvent): number {
  if (event.type === 'text' || event.type === 'reasoning_delta') return event.text.length;
  if (event.type === 'tool_call_delta') return event.argumentsDelta.length;
  return 0;
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
