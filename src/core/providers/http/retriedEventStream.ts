import { postEventStream, type EventStreamRequest } from './httpStream';
import { announceRetry, retryStream, type RetryOptions } from './retry';
import type { SseEvent } from './sse';
import type { ProviderEvent } from '../types';

/**
 * POSTs a streaming request and decodes its events into provider events, retrying an attempt
 * that failed before it yielded anything (each retry is announced as an event).
 */
export function retriedEventStream(
  request: EventStreamRequest,
  decode: (events: AsyncIterable<SseEvent>) => AsyncIterable<ProviderEvent>,
  retry: RetryOptions | undefined,
): AsyncGenerator<ProviderEvent> {
  return retryStream(() => decode(postEventStream(request)), { ...retry, signal: request.signal, announce: announceRetry });
}
