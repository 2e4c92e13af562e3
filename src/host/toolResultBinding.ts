import type { Message } from '../core/model/message';

/**
 * Each assistant message's tool results, in the order of its calls. A result belongs to the
 * assistant message it follows (before the next assistant message) and, within it, to the first
 * call with its id that has no result yet: an id an earlier message also used never picks up a
 * result that is not its own, even in a session stored before ids were made unique.
 */
export function bindToolResults(transcript: readonly Message[]): Map<string, Array<Message | undefined>> {
  const bound = new Map<string, Array<Message | undefined>>();
  let current: { calls: readonly { id: string }[]; results: Array<Message | undefined> } | undefined;
  for (const m of transcript) {
    if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      current = { calls, results: calls.map(() => undefined) };
      bound.set(m.id, current.results);
    } else if (m.role === 'tool' && current) {
      const slot = current.calls.findIndex((c, i) => c.id === (m.toolCallId ?? '') && !current!.results[i]);
      if (slot >= 0) current.results[slot] = m;
    }
  }
  return bound;
}
