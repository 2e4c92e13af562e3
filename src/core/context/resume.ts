import { adoptStoredCounts } from '../accounting/messageTokens';
import { normalizeHistory } from '../history/normalize';
import { repairCallIdsOnLoad } from '../history/repairCallIds';
import type { Message } from '../model/message';
import type { RequestUsageRecord } from '../model/records';
import type { SessionStore } from '../ports/sessionStore';
import { readLastRequest, type LastRequest } from './lastRequestUsage';

export interface ResumedSession {
  working: Message[];
  /** The newest createdAt seen: new messages are stamped after it. */
  lastCreatedAt: number;
  nextRequestIndex: number;
  lastCompactionId?: string;
  /** The last request sent (its figures, not its items): the usage basis takes up its report where it left off. */
  lastRequest?: RequestUsageRecord;
  /** The transcript messages read: all of them (`complete`), or those after the snapshot. */
  transcript: { messages: Message[]; complete: boolean };
}

/**
 * Resume path: the latest snapshot plus only the transcript messages recorded after it (the older
 * ones are not read, only whether they are pinned now). Without a readable snapshot (none yet, or
 * a damaged one set aside), the whole transcript. A history stored by an older version or cut by
 * a crash is repaired here, not trusted. `lastRead`: the last request, when the caller reads it
 * anyway (it is not read twice). `beforeWholeTranscript`: the whole transcript's read waits for it.
 */
export async function resumeSession(store: SessionStore, sessionId: string, lastRead?: Promise<LastRequest>, beforeWholeTranscript?: () => Promise<void>): Promise<ResumedSession> {
  // The last request's figures are read beside the messages, unless the caller is reading them already.
  const last = lastRead ?? readLastRequest(store, sessionId);
  last.catch(() => undefined); // its failure fails the resume below, once the messages are read
  const snapshot = await store.loadSnapshot(sessionId);
  let messages: Message[];
  let transcript: Message[];
  if (snapshot) {
    const [pins, newer] = await Promise.all([store.loadPins(sessionId, snapshot.createdAt), store.loadTranscript(sessionId, { createdAfter: snapshot.createdAt })]);
    transcript = newer;
    messages = [...snapshot.messages.map((m) => (pins.has(m.id) ? { ...m, pinned: pins.get(m.id) } : m)), ...newer];
  } else {
    await beforeWholeTranscript?.();
    transcript = await store.loadTranscript(sessionId);
    messages = transcript;
  }
  adoptStoredCounts(messages);
  const { nextRequestIndex, record: lastRequest } = await last;
  const lastCreatedAt = transcript.reduce((max, m) => Math.max(max, m.createdAt), snapshot?.createdAt ?? 0);
  return { working: normalizeHistory(repairCallIdsOnLoad(messages, sessionId)).messages, lastCreatedAt, nextRequestIndex, lastCompactionId: snapshot?.compactionId, lastRequest, transcript: { messages: transcript, complete: !snapshot } };
}
