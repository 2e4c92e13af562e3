import type { Message } from '../../core/model/message';
import type { TurnUsageRecord } from '../../core/model/records';
import type { SessionStore, ToolCallIndex } from '../../core/ports/sessionStore';
import type { BlobInfo } from '../../core/ports/blobStore';
import { callArguments, firstRequestAfter, requestsByTime, toolCallLabel, withRequest } from './documentTitles';

/**
 * Names each offloaded result by its tool, what the call acted on, and the first request that
 * carried it. `complete` says whether every result has its request yet.
 */
function titlesOf(blobs: readonly BlobInfo[], usage: readonly TurnUsageRecord[], index: ToolCallIndex): { titles: Record<string, string>; complete: boolean } {
  const byTime = requestsByTime(usage);
  const titles: Record<string, string> = {};
  let complete = true;
  for (const b of blobs) {
    const call = b.toolCallId ? index.calls.get(b.toolCallId) : undefined;
    const request = b.toolCallId ? firstRequestAfter(byTime, index.resultTimes.get(b.toolCallId)) : undefined;
    if (request === undefined) complete = false;
    titles[b.id] = withRequest(toolCallLabel(b.toolName, call?.arguments), request);
  }
  return { titles, complete };
}

/** `index` with the calls and result times of `messages` added (a new map each). */
function withMessages(index: ToolCallIndex, messages: readonly Message[]): ToolCallIndex {
  const resultTimes = new Map(index.resultTimes);
  for (const m of messages) if (m.toolCallId) resultTimes.set(m.toolCallId, m.createdAt);
  return { calls: new Map([...index.calls, ...callArguments(messages)]), resultTimes };
}

/** Whether a result's call (or, with `times`, its result's time) is not in `index`. */
function lacks(index: ToolCallIndex, blobs: readonly BlobInfo[], times: boolean): boolean {
  return blobs.some((b) => b.toolCallId !== undefined && (!index.calls.has(b.toolCallId) || (times && !index.resultTimes.has(b.toolCallId))));
}

/** The newest messages searched for a new result's call before the session's whole index is read. */
const RECENT_MESSAGES = 200;

/** The last titles made per session, what they were made from, and the calls they were named by. */
const titleMemo = new Map<string, { blobs: number; usage: number; complete: boolean; titles: Record<string, string>; index: ToolCallIndex }>();

/**
 * A result's title changes only when it is added and when the first request after it is made, so
 * titles are made again only when a result was added, or a request was while one still waits for
 * its request: not on every refresh. The session's index of calls (which reads every segment) is
 * read once; a result added later is a recent one, whose call is found among the newest messages
 * (kept in memory for the views).
 */
export async function resultTitles(sessionId: string, blobs: readonly BlobInfo[], usage: readonly TurnUsageRecord[], store: SessionStore): Promise<Record<string, string>> {
  const known = titleMemo.get(sessionId);
  if (known && known.blobs === blobs.length && (known.complete || known.usage === usage.length)) return known.titles;
  let index = known?.index;
  if (index && lacks(index, blobs, true)) index = withMessages(index, (await store.loadRecentTranscript(sessionId, RECENT_MESSAGES)).messages);
  // A result offloaded before its message is stored has no time yet: that alone is no reason to
  // read every segment (its title gets its request once the message is there).
  if (!index || lacks(index, blobs, false)) index = await store.loadToolCallIndex(sessionId);
  const { titles, complete } = titlesOf(blobs, usage, index);
  titleMemo.delete(sessionId);
  titleMemo.set(sessionId, { blobs: blobs.length, usage: usage.length, complete, titles, index });
  if (titleMemo.size > 8) titleMemo.delete(titleMemo.keys().next().value!);
  return titles;
}
