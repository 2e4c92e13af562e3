import type { Message } from './message';

/**
 * A session's messages are settled as they enter its working context: the session never replaces
 * a field of one in place (a change is a new object). So what was built from a message (its
 * request bytes) stays right while it is the same object, and a request body need not read the
 * whole context again to check that (see SentMessages in providers/bodyBytes.ts).
 *
 * The mark is a hidden slot (a non-enumerable symbol property, which spreads and JSON never copy),
 * not Object.freeze: frozen messages made every later look-up of a message's memoized count
 * several times slower (opening 50,000 messages: ~100 ms of counting look-ups against ~10 ms).
 */
const SETTLED = Symbol('tally.settled');

type Marked = Message & { [SETTLED]?: true };

/** Whether the session that holds `message` promised never to change it in place. */
export function isSettled(message: Message): boolean {
  return (message as Marked)[SETTLED] === true;
}

/** Marks `message` settled: its session will never replace a field of it in place. */
export function settledMessage<T extends Message>(message: T): T {
  if (!isSettled(message) && Object.isExtensible(message)) Object.defineProperty(message, SETTLED, { value: true, enumerable: false });
  return message;
}

export function settleMessages<T extends readonly Message[]>(messages: T): T {
  for (const message of messages) settledMessage(message);
  return messages;
}
