import type { RequestUsageRecord } from '../model/records';
import type { SessionStore } from '../ports/sessionStore';

/** Where a session's requests left off: the next request's index and the last request's figures. */
export interface LastRequest {
  nextRequestIndex: number;
  /** Its figures, items left empty; undefined before the first request or when unreadable. */
  record?: RequestUsageRecord;
}

/**
 * The figures of a session's last request (items left empty), read on their own: the highest
 * request index comes from the segments' recorded facts, and only the segments holding it are
 * opened, where listing every usage record to take the last cost 130–150 ms on 3,000 requests.
 */
export async function readLastRequest(store: SessionStore, sessionId: string): Promise<LastRequest> {
  const nextRequestIndex = await store.nextRequestIndex(sessionId);
  const record = nextRequestIndex > 0 ? await store.requestUsageAt(sessionId, nextRequestIndex - 1, { items: false }).catch(() => undefined) : undefined;
  return { nextRequestIndex, record };
}

export async function lastRequestUsage(store: SessionStore, sessionId: string): Promise<RequestUsageRecord | undefined> {
  return (await readLastRequest(store, sessionId)).record;
}
