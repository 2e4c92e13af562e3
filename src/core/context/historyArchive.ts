import { transcriptIdsOf } from '../compaction/removedItems';
import type { Message } from '../model/message';
import type { AddedItem } from '../model/records';
import type { SessionStore } from '../ports/sessionStore';
import { forkPointOf } from './forkPoint';

/** A message the history holds, where it is held, and (for an item a compaction added) what it replaced. */
export interface ArchivedMessage {
  message: Message;
  /** The session that holds it: this one, or one it was forked from. */
  sessionId: string;
  /** A transcript message (not an item a compaction added). */
  inTranscript: boolean;
  /** An added item's parts (see AddedItem); undefined for a transcript message or an item recorded without them. */
  parts?: readonly string[];
}

/** The creation times of the first and last transcript message an item stands for. */
export interface TimeSpan {
  from: number;
  to: number;
}

/** How many sessions up a fork's chain of origins is followed (a fork of a fork of …). */
const MAX_ORIGINS = 32;

/**
 * Everything a session's history holds besides its working context, read for a rewind or a fork:
 * its transcript, and each item a compaction put in the working context (summaries, archived
 * results' pointers, drop markers) with the items it replaced. What a fork carried from the
 * session it started from is looked up there, and so on up; those sessions are read only when a
 * message is not found here.
 */
export class HistoryArchive {
  private readonly transcriptById = new Map<string, Message>();
  private readonly addedById = new Map<string, AddedItem>();
  private origin?: Promise<HistoryArchive | undefined>;

  private constructor(
    private readonly store: SessionStore,
    readonly sessionId: string,
    /** The transcript, oldest first. */
    readonly transcript: readonly Message[],
    added: readonly AddedItem[],
    private readonly depth: number,
  ) {
    for (const m of transcript) this.transcriptById.set(m.id, m);
    for (const item of added) this.addedById.set(item.message.id, item);
  }

  static async read(store: SessionStore, sessionId: string, depth = 0): Promise<HistoryArchive> {
    const [transcript, events] = await Promise.all([store.loadTranscript(sessionId), store.listCompactionEvents(sessionId)]);
    return new HistoryArchive(store, sessionId, transcript, events.flatMap((e) => e.added ?? []), depth);
  }

  /** A transcript message of this session by id (not of the sessions it was forked from). */
  own(id: string): Message | undefined {
    return this.transcriptById.get(id);
  }

  /** A message by id: a transcript message or an added item, of this session or the sessions it was forked from. */
  async find(id: string): Promise<ArchivedMessage | undefined> {
    const message = this.transcriptById.get(id);
    if (message) return { message, sessionId: this.sessionId, inTranscript: true };
    const added = this.addedById.get(id);
    if (added) return { message: added.message, sessionId: this.sessionId, inTranscript: false, parts: added.parts };
    return (await this.originArchive())?.find(id);
  }

  /**
   * The creation times of the first and last transcript message `message` stands for (itself, or
   * what it replaced). A replaced message no session of the chain holds is left out; when none is
   * known, the item's own time is its span.
   */
  async span(message: Message): Promise<TimeSpan> {
    const own = this.transcriptById.get(message.id);
    if (own) return { from: own.createdAt, to: own.createdAt };
    let from = Infinity;
    let to = -Infinity;
    for (const id of transcriptIdsOf(message)) {
      const at = this.transcriptById.get(id)?.createdAt ?? (await this.find(id))?.message.createdAt;
      if (at === undefined) continue;
      from = Math.min(from, at);
      to = Math.max(to, at);
    }
    return from <= to ? { from, to } : { from: message.createdAt, to: message.createdAt };
  }

  /**
   * The time of the first message recorded with user message `messageId`: its first attachment or
   * the plan it approved (recorded right before it, in the same append), else its own. A fork may hold
   * the message without its attachments (a summary it carried stands for them): the sessions it
   * came from are asked too.
   */
  async appendedAt(messageId: string): Promise<number | undefined> {
    let at = this.transcript.findIndex((m) => m.id === messageId);
    const own = at >= 0 ? this.transcript[at].createdAt : undefined;
    while (at > 0 && sentWith(this.transcript[at - 1])) at--;
    const here = at >= 0 ? this.transcript[at].createdAt : undefined;
    const there = await (await this.originArchive())?.appendedAt(messageId);
    const times = [here, there].filter((t): t is number => t !== undefined);
    return times.length ? Math.min(...times) : own;
  }

  /** The archive of the session this one was forked from, read once when first needed. */
  private originArchive(): Promise<HistoryArchive | undefined> {
    this.origin ??= (async () => {
      if (this.depth >= MAX_ORIGINS) return undefined;
      const info = await this.store.getSession(this.sessionId);
      const point = info && forkPointOf(info);
      if (!point || !(await this.store.getSession(point.fromSessionId))) return undefined;
      return HistoryArchive.read(this.store, point.fromSessionId, this.depth + 1);
    })();
    return this.origin;
  }
}

/** Recorded right before a user message, as part of it: what the user attached, the plan they approved. */
function sentWith(m: Message): boolean {
  return m.kind === 'attachment' || (m.kind === 'plan' && m.meta?.plan === 'approved');
}
