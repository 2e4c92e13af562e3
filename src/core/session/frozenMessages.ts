import type { Message } from '../model/message';

/**
 * A session's messages are frozen as they enter its working context: a change to one is a new
 * object, never a field replaced in place. So what was built from a message (its request bytes)
 * stays right while it is the same object, and a request body need not read the whole context
 * again to check that (see SentMessages in providers/bodyBytes.ts). Freezing is shallow: a field's
 * own value (tool calls, meta) is replaced whole, never edited.
 */
export function frozenMessage<T extends Message>(message: T): T {
  return Object.freeze(message);
}

/**
 * Counts `message` (memoized) before it is frozen: a count is kept in a slot on the message, which a
 * frozen object cannot take (it would be kept aside, slower to look up on every measure).
 */
export function countedAndFrozen<T extends Message>(message: T, count: (m: Message) => number): T {
  count(message);
  return Object.freeze(message);
}

/** Freezes a list's messages; those counted (or whose stored counts were adopted) keep their count's slot. */
export function freezeMessages<T extends readonly Message[]>(messages: T): T {
  for (const message of messages) Object.freeze(message);
  return messages;
}
