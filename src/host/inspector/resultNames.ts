import type { Message } from '../../core/model/message';
import type { RequestUsageRecord } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import type { SessionStore } from '../../core/ports/sessionStore';
import type { ResultTitle } from '../../core/context/sessionChanges';
import { callArguments, firstRequestAfter, requestsByTime, toolCallLabel, withRequest } from './documentTitles';

/** "run_command npm test · request #12": a result's name from the title decided when it was stored. */
export function titleOf(title: ResultTitle): string {
  return withRequest(toolCallLabel(title.toolName, title.arguments), title.requestIndex);
}

/**
 * Names for results stored before the session opened: their calls are looked up in the messages
 * held (the newest part of the transcript), and only when some are not there in the session's
 * index of calls; each request is the first one made after its result was recorded.
 */
export async function seededTitles(store: SessionStore, sessionId: string, blobs: readonly BlobInfo[], usage: readonly RequestUsageRecord[], held: readonly Message[]): Promise<Map<string, string>> {
  let calls = callArguments(held);
  let resultTimes = new Map<string, number>();
  for (const m of held) if (m.toolCallId) resultTimes.set(m.toolCallId, m.createdAt);
  if (blobs.some((b) => b.toolCallId !== undefined && !calls.has(b.toolCallId))) {
    const index = await store.loadToolCallIndex(sessionId);
    calls = new Map([...index.calls, ...calls]);
    resultTimes = new Map([...index.resultTimes, ...resultTimes]);
  }
  const byTime = requestsByTime(usage);
  const titles = new Map<string, string>();
  for (const b of blobs) {
    const call = b.toolCallId ? calls.get(b.toolCallId) : undefined;
    const request = b.toolCallId ? firstRequestAfter(byTime, resultTimes.get(b.toolCallId)) : undefined;
    titles.set(b.id, withRequest(toolCallLabel(b.toolName, call?.arguments), request));
  }
  return titles;
}
