import { transcriptIdsOf } from '../compaction/removedItems';
import type { Message } from '../model/message';

/**
 * Where a transcript message stands with the working context: `in-context` (the model sees it as
 * it is, or shortened as it was recorded), `summarized` (a summary, an archived result's pointer or
 * a drop marker stands in for it), `set-aside` (the model no longer sees it in any form: a rewind
 * went back to before it, or a retried turn hid it).
 */
export type ContextMark = 'in-context' | 'summarized' | 'set-aside';

/**
 * How each transcript message stands with a working context (the session's messages now), as the
 * next request carries it: only visible items count. Every view that marks messages (the chat's
 * "set aside") asks this, so it says exactly what the context holds.
 */
export function contextMarks(working: readonly Message[]): (messageId: string) => ContextMark {
  const marks = new Map<string, ContextMark>();
  for (const m of working) {
    if (!m.agentVisible) continue;
    const ids = transcriptIdsOf(m);
    if (ids.length === 1 && ids[0] === m.id) marks.set(m.id, 'in-context');
    else for (const id of ids) if (!marks.has(id)) marks.set(id, 'summarized');
  }
  return (messageId) => marks.get(messageId) ?? 'set-aside';
}
