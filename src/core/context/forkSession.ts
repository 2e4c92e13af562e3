import { refsIn } from '../compaction/strategies/storeReplaced';
import { newId } from '../model/ids';
import type { Message } from '../model/message';
import type { CompactionEventRecord, RequestItem, RequestUsageRecord } from '../model/records';
import type { SessionInfo, SessionStore } from '../ports/sessionStore';
import { forkOrigin, forkPointOf, type ForkPoint } from './forkPoint';
import { HistoryArchive } from './historyArchive';
import { conversationItemsOf } from './messageItems';


export interface ForkedSession {
  info: SessionInfo;
  /** The first entry of the fork's history (trigger 'fork'). */
  entry: CompactionEventRecord;
  /** The fork's working context: what the request carried, in its order. */
  messages: Message[];
}

/** A stored result's id as the model reads it in a message (see newRefId). */
const REF_IN_TEXT = /\br\d{28}\b/g;

/**
 * Each item's message as the request sent it. Transcript messages are read from the transcript (a
 * later copy differs only in its pin and visibility, which are set back to what the request sent);
 * summaries and archived pointers from the working context (`working`: the session's now, else its
 * latest snapshot), or, once a later compaction replaced them, from the history that recorded them.
 */
async function messagesSent(store: SessionStore, point: ForkPoint, items: readonly RequestItem[], working: readonly Message[] | undefined): Promise<Message[]> {
  const ids = items.map((item) => item.messageId);
  const [stored, context] = await Promise.all([store.loadMessages(point.fromSessionId, ids), working ?? store.loadSnapshot(point.fromSessionId).then((s) => s?.messages ?? [])]);
  const byId = new Map<string, Message>();
  for (const m of context) byId.set(m.id, m);
  for (const m of stored) byId.set(m.id, m);
  let archive: Promise<HistoryArchive> | undefined;
  const sent: Message[] = [];
  for (const item of items) {
    const found = byId.get(item.messageId) ?? (await (archive ??= HistoryArchive.read(store, point.fromSessionId)).then((a) => a.find(item.messageId)))?.message;
    if (!found) {
      const what = item.badges.includes('summarized') ? 'a summary' : item.badges.includes('archived') ? 'an archived result' : `${/^[aeiou]/.test(item.kind) ? 'an' : 'a'} ${item.kind} message`;
      throw new Error(`request #${point.fromRequestIndex} carried ${what} that a later compaction replaced, and the session's history does not hold it (a version before this one did not keep them) ("${item.preview.slice(0, 60)}"); fork from a later request`);
    }
    if (found.role !== item.role || (found.kind !== item.kind && !(item.kind === 'image' && found.images?.length))) {
      throw new Error(`request #${point.fromRequestIndex} carried message "${item.messageId}" as a ${item.kind} message, but the session now stores it as ${found.kind}; it cannot be forked from`);
    }
    const pinned = item.badges.includes('pinned');
    // Hidden after the request (a retried turn): the request sent it, so the fork shows and sends it again.
    const { pinned: _pinned, ...rest } = found;
    sent.push({ ...rest, ...(pinned ? { pinned: true } : {}), agentVisible: true, userVisible: found.agentVisible ? found.userVisible : true });
  }
  return sent;
}

/** Every stored-result id the messages refer to: their own refs, those summaries list, ids in their text, their images' bytes. */
export function referencedResults(messages: readonly Message[]): string[] {
  const refs = new Set(refsIn(messages));
  for (const m of messages) for (const match of m.content.matchAll(REF_IN_TEXT)) refs.add(match[0]);
  for (const m of messages) for (const image of m.images ?? []) if (image.ref) refs.add(image.ref);
  return [...refs];
}

/** The session and request a fork point names; throws, saying why, when either is not stored. */
async function checkPoint(store: SessionStore, point: ForkPoint): Promise<{ from: SessionInfo; record: RequestUsageRecord }> {
  if (typeof point.fromSessionId !== 'string' || point.fromSessionId.length === 0) throw new Error('a fork needs the session it starts from');
  if (!Number.isSafeInteger(point.fromRequestIndex) || point.fromRequestIndex < 0) throw new Error(`"${String(point.fromRequestIndex)}" is not a request number`);
  const from = await store.getSession(point.fromSessionId);
  if (!from) throw new Error(`session ${point.fromSessionId} is not stored, so it cannot be forked`);
  const record = await store.requestUsageAt(point.fromSessionId, point.fromRequestIndex);
  if (!record) throw new Error(`session "${from.title}" has no request #${point.fromRequestIndex} to fork from`);
  return { from, record };
}

/**
 * Starts a new stored session whose history is exactly what request `fromRequestIndex` of
 * `fromSessionId` carried: its messages in order, with the pins it sent them with. The fork reads
 * the stored results those messages refer to (shared, not copied). Its history's first entry says
 * where it came from; the original session is not changed. Its working context is saved as a
 * snapshot (summaries and pointers are not transcript messages), so it resumes like any session.
 * `working`: the original's working context now, when it is open (else its snapshot is read).
 */
export async function forkSession(store: SessionStore, point: ForkPoint, options: { working?: readonly Message[]; now?: () => number } = {}): Promise<ForkedSession> {
  const now = options.now ?? Date.now;
  const { from, record } = await checkPoint(store, point);
  const items = conversationItemsOf(record);
  if (items.length === 0) throw new Error(`request #${point.fromRequestIndex} carried no messages to fork`);
  const messages = await messagesSent(store, point, items, options.working);
  const info = await store.createSession({ title: `Fork of ${from.title} at #${point.fromRequestIndex}`, model: from.model ?? record.model, origin: forkOrigin(point) });
  await store.shareBlobs(point.fromSessionId, info.id, referencedResults(messages));
  // Summaries and pointers live in the working context only, as in any session.
  await store.putMessages(info.id, messages.filter((m) => !m.meta?.synthetic && !m.meta?.replaces));
  // Before: the figure the original session shows for the request (its provider's count). After:
  // what the fork's meter shows until its own first request, Tally's count of the same items.
  const reported = record.reportedInputTokens ?? record.estimatedInputTokens;
  const entry: CompactionEventRecord = {
    id: newId('c'),
    sessionId: info.id,
    trigger: 'fork',
    status: 'complete',
    strategies: [],
    tokensBefore: reported,
    tokensAfter: record.estimatedInputTokens,
    estimatedTokensBefore: record.estimatedInputTokens,
    estimatedTokensAfter: record.estimatedInputTokens,
    messagesBefore: messages.length,
    messagesAfter: messages.length,
    startedAt: now(),
    durationMs: 0,
    removed: [],
    step: { kind: 'fork', fromSessionId: point.fromSessionId, fromRequestIndex: point.fromRequestIndex },
  };
  await store.addCompactionEvent(entry);
  const createdAt = messages.reduce((max, m) => Math.max(max, m.createdAt), 0);
  const tokenCount = items.reduce((sum, item) => sum + item.tokens, 0);
  await store.saveSnapshot({ sessionId: info.id, messages, tokenCount, compactionId: entry.id, createdAt });
  return { info, entry, messages };
}

/**
 * The figures a fork opens with before its first request: those of the request it started from
 * (its prompt outside the conversation, window and output reserve). Undefined for a session that
 * is not a fork, or when that request is no longer stored.
 */
export async function forkStartUsage(store: SessionStore, info: Pick<SessionInfo, 'origin'>): Promise<RequestUsageRecord | undefined> {
  const point = forkPointOf(info);
  return point ? store.requestUsageAt(point.fromSessionId, point.fromRequestIndex, { items: false }).catch(() => undefined) : undefined;
}
