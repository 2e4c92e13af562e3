import type { Message } from '../../core/model/message';

interface Scanned {
  length: number;
  times: number[];
}

/** Per working-context array: how far it was scanned and the times found, so each call reads only what was appended since. */
const scans = new WeakMap<readonly Message[], Scanned>();

/**
 * When each user message of a working context was written, oldest first. The inspector asks at
 * every patch it posts (the turn forecast), and a compaction of 50,000 messages posts one per
 * result it stores: the array is read once, then only its messages appended since. A working
 * context is replaced by a new array when it loses messages; a message rewritten in place (a
 * result offloaded, a count added) keeps its role and time.
 */
export function userMessageTimes(messages: readonly Message[]): readonly number[] {
  let scanned = scans.get(messages);
  if (!scanned || scanned.length > messages.length) {
    scanned = { length: 0, times: [] };
    scans.set(messages, scanned);
  }
  for (let at = scanned.length; at < messages.length; at++) {
    const m = messages[at];
    if (m.role === 'user' && m.kind === 'user') scanned.times.push(m.createdAt);
  }
  scanned.length = messages.length;
  return scanned.times;
}
