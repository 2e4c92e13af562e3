import { meteredEvents, ReplyMeter, type ReplyLimits } from '../replyLimits';
import { postEventStream, type EventStreamRequest } from './httpStream';
import { announceRetry, retryStream, type RetryOptions } from './retry';
import type { SseEvent } from './sse';
import type { ProviderEvent } from '../types';

/**
 * POSTs a streaming request and decodes its events into provider events, retrying an attempt
 * that failed before it yielded anything (each retry is announced as an event). Each attempt is
 * held to the reply limits: its time and event size in the transport, what it brought by the
 * meter (which the decoder also reaches, for what it gathers without passing on).
 */
export function retriedEventStream(
  request: EventStreamRequest,
  decode: (events: AsyncIterable<SseEvent>, meter: ReplyMeter) => AsyncIterable<ProviderEvent>,
  retry: RetryOptions | undefined,
  limits: ReplyLimits,
  /** The provider's thinking carries signatures: kept whole or the reply ends with an error (see ReplyLimits). */
  signedThinking = false,
): AsyncGenerator<ProviderEvent> {
  const bounded: EventStreamRequest = { ...request, replyTimeoutMs: limits.replyMs, maxEventChars: limits.eventChars };
  return retryStream(
    () => {
      const meter = new ReplyMeter(limits, request.errors.provider, signedThinking);
      return meteredEvents(decode(postEventStream(bounded), meter), meter);
    },
    { ...retry, signal: request.signal, announce: announceRetry },
  );
}
