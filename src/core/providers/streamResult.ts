import type { ToolCall } from '../model/message';
import { describeError, type ErrorContext } from './classifyError';
import { ProviderError } from './errors';
import type { ProviderEvent, ReportedUsage, StopReason } from './types';

/** Keeps the finite, non-negative numbers of a usage object; undefined when none is left. */
export function cleanUsage(usage: ReportedUsage): ReportedUsage | undefined {
  const out: ReportedUsage = {};
  for (const key of ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const) {
    const value = usage[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return Object.keys(out).length ? out : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The closing events every provider yields once a message completed: calls, usage, done. */
export function* finalEvents(calls: ToolCall[], usage: ReportedUsage, stopReason: StopReason): Generator<ProviderEvent> {
  for (const call of calls) yield { type: 'tool_call', call };
  const reported = cleanUsage(usage);
  if (reported) yield { type: 'usage', usage: reported };
  yield { type: 'done', stopReason: calls.length && stopReason === 'end_turn' ? 'tool_use' : stopReason };
}

export function droppedBeforeEnd(ctx: ErrorContext): ProviderError {
  return new ProviderError('stream_dropped', describeError(ctx.provider, 'stream_dropped', 'the stream ended before the message was complete'));
}

/**
 * An error the server reported inside the stream. Before any output it keeps its kind (so rate
 * limits and overload are retried); after output started, a retryable one means the answer broke
 * off midway and surfaces as 'stream_dropped' for the agent loop to handle.
 */
export function midStreamError(error: ProviderError, outputStarted: boolean): ProviderError {
  if (!outputStarted || !error.retryable || error.kind === 'stream_dropped') return error;
  return new ProviderError('stream_dropped', error.message, { code: error.code, cause: error });
}

/**
 * Iterates a provider's events; once `complete()` says the message has its stop reason, a
 * connection that breaks afterwards loses nothing the agent needs and ends the iteration quietly.
 */
export async function* untilComplete<T>(events: AsyncIterable<T>, complete: () => boolean): AsyncGenerator<T> {
  try {
    for await (const event of events) yield event;
  } catch (error) {
    if (error instanceof ProviderError && error.kind === 'stream_dropped' && complete()) return;
    throw error;
  }
}
