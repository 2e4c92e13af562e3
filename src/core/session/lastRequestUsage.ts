import type { RequestUsageRecord } from '../model/records';
import type { SessionStore } from '../ports/sessionStore';

/**
 * The figures of a session's last request (items left empty), read on their own: the highest
 * request index comes from the segments' recorded facts, and only the segments holding it are
 * opened, where listing every usage record to take the last cost 130–150 ms on 3,000 requests.
 */
export async function lastRequestUsage(store: SessionStore, sessionId: string): Promise<RequestUsageRecord | undefined> {
  const last = (await store.nextRequestIndex(sessionId)) - 1;
  return last < 0 ? undefined : store.requestUsageAt(sessionId, last, { items: false });
}
