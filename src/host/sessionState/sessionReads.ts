import type { Message } from '../../core/model/message';
import type { RecentTranscript, SessionStore } from '../../core/ports/sessionStore';
import { seededTitles } from '../inspector/resultNames';
import { subagentUsage } from './subagentUsage';
import { SessionState, type SessionIdentity } from './sessionState';

/** The chat opens with about this many of a session's newest messages, and shows earlier ones this many at a time. */
export const CHAT_PAGE_MESSAGES = 200;

/** Transcript messages a session read to resume: all of them, or the newest part. */
export interface ResumedTranscript {
  messages: readonly Message[];
  complete: boolean;
}

/**
 * The newest `count` messages of `known`, cut as the store cuts a page (after the time of the
 * newest message left out); undefined when `known` does not hold a whole page.
 */
export function pageOf(known: ResumedTranscript, count: number): RecentTranscript | undefined {
  const list = known.messages;
  if (list.length <= count) return known.complete ? { messages: [...list], complete: true } : undefined;
  const leftOut = list[list.length - count - 1].createdAt;
  let start = list.length - count;
  while (start < list.length && list[start].createdAt <= leftOut) start++;
  if (start >= list.length) return undefined;
  return { messages: list.slice(start), complete: false, createdAfter: leftOut };
}

/**
 * Reads what the views show of a session (its newest `page` messages and its lists) into a new
 * state, as its first input. `resumed`: the transcript messages the session read to resume, when
 * it hands them over; the page is taken from them when they hold it, so the newest files are not
 * read twice.
 */
export async function readSessionState(store: SessionStore, identity: SessionIdentity, page: number, resumed?: Promise<ResumedTranscript | undefined>): Promise<SessionState> {
  const sessionId = identity.info.id;
  const recentPage = async (): Promise<RecentTranscript> => {
    const known = await resumed;
    return (known && pageOf(known, page)) ?? store.loadRecentTranscript(sessionId, page);
  };
  const [recent, compactions, usage, blobs] = await Promise.all([recentPage(), store.listCompactionHeads(sessionId), store.listRequestUsage(sessionId, { items: false }), store.listBlobs(sessionId)]);
  const state = new SessionState(identity);
  state.apply({ kind: 'stored', stored: { page: recent, compactions, usage, blobs } });
  return state;
}

/**
 * The store reads a shown session's state asks for after it opened, each turned into an input of
 * the state: older messages for "Show earlier", the names of results stored before it opened, the
 * requests of its subagents.
 */
export class SessionReads {
  /** The names of the results stored before the session opened, read once when first asked for. */
  private seeding?: Promise<void>;

  constructor(
    private readonly store: SessionStore,
    readonly state: SessionState,
  ) {}

  /**
   * Reads about `count` more of the older messages, before those held. Returns false when there
   * were none left to read.
   */
  async showEarlier(count: number): Promise<boolean> {
    const from = this.state.records.heldFrom;
    if (from === undefined) return false;
    const sessionId = this.state.sessionId;
    const page = await this.store.loadRecentTranscript(sessionId, count, { createdUpTo: from });
    if (this.state.records.heldFrom !== from) return true; // another read got there first
    // More messages share one creation time than a page holds: the rest is read whole.
    const earlier = page.messages.length === 0 && !page.complete ? (await this.store.loadTranscript(sessionId)).filter((m) => m.createdAt <= from) : page.messages;
    const complete = page.complete || page.messages.length === 0;
    this.state.apply({ kind: 'earlier', page: { messages: earlier, complete, createdAfter: complete ? undefined : page.createdAfter } });
    return true;
  }

  /** Names the results stored before the session opened (once; those stored since are named as they come). */
  seedTitles(): Promise<void> {
    const { records } = this.state;
    const unnamed = records.blobs.filter((b) => !records.blobTitles.has(b.id));
    if (unnamed.length === 0) return Promise.resolve();
    // A store that cannot say leaves those results named by their tool (the list falls back to it).
    this.seeding ??= seededTitles(this.store, this.state.sessionId, unnamed, records.usageFigures, records.heldMessages).then(
      (titles) => void this.state.apply({ kind: 'titles', titles }),
      () => undefined,
    );
    return this.seeding;
  }

  /** Reads the requests of the session's subagents (and theirs): the turns they ran in count them. */
  async subagentUsage(): Promise<void> {
    const records = await subagentUsage(this.store, this.state.sessionId);
    if (records.length) this.state.apply({ kind: 'subagentUsage', records });
  }
}
