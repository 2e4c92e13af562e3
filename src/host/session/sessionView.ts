import type { Message } from '../../core/model/message';
import type { CompactionEventRecord, RequestUsageRecord } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import type { RecentTranscript, SessionStore } from '../../core/ports/sessionStore';
import type { ModelPrices } from '../../core/providers/models/modelRegistry';
import type { SessionChange } from '../../core/context/sessionChanges';
import type { RequestView } from '../../protocol/inspector';
import { ChatEntries } from '../chat/chatEntries';
import { contextMarks } from '../../core/context/contextMarks';
import { seededTitles, titleOf } from '../inspector/resultNames';

/** The chat opens with about this many of a session's newest messages, and shows earlier ones this many at a time. */
export const CHAT_PAGE_MESSAGES = 200;

/** A request's figures as the inspector lists them. */
function requestView(u: RequestUsageRecord): RequestView {
  return {
    requestIndex: u.requestIndex,
    createdAt: u.createdAt,
    components: u.components,
    estimatedInputTokens: u.estimatedInputTokens,
    reportedInputTokens: u.reportedInputTokens,
    reportedOutputTokens: u.reportedOutputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    reasoningTokens: u.reasoningTokens,
    compactionId: u.compactionId,
    itemCount: u.itemCount ?? u.items.length,
  };
}

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

/** Usage figures without the item list (the views need only the figures; items are read when a request is opened). */
function figuresOnly(record: RequestUsageRecord): RequestUsageRecord {
  return record.items.length === 0 ? record : { ...record, itemCount: record.itemCount ?? record.items.length, items: [] };
}

/**
 * One open session as the chat and the inspector show it: read from the store once, when the
 * session opens (the newest page of the transcript, the compaction events, the usage figures, the
 * offloaded results), then kept current by folding the session's changes as they are written.
 * No refresh reads the store: the chat's entries and the inspector's rows are updated in place,
 * and each view posts what changed since it last posted.
 */
export class SessionView {
  /** The transcript's newest part, held (it grows with each message; "Show earlier" extends it back). */
  private messages: Message[] = [];
  /** When not the whole transcript: the held messages are those created after this time. */
  private from?: number;
  private compactionList: CompactionEventRecord[] = [];
  private usage: RequestUsageRecord[] = [];
  private requestList: RequestView[] = [];
  private blobList: BlobInfo[] = [];
  private titles = new Map<string, string>();
  /** Titles of the results stored before the session opened, made once when first asked for. */
  private seeding?: Promise<void>;
  /** Counts each kind of change, so a view can tell whether what it sent is still current. */
  readonly versions = { compactions: 0, titles: 0 };
  readonly chat: ChatEntries;

  private constructor(
    private readonly store: SessionStore,
    readonly sessionId: string,
    prices: Record<string, ModelPrices>,
  ) {
    this.chat = new ChatEntries(prices);
  }

  /**
   * Reads what the views show of a session: its newest `page` messages and its lists. `resumed`:
   * the transcript messages the session read to resume, when it hands them over; the page is taken
   * from them when they hold it, so the newest files are not read twice.
   */
  static async open(store: SessionStore, sessionId: string, page: number, prices: Record<string, ModelPrices> = {}, resumed?: Promise<ResumedTranscript | undefined>): Promise<SessionView> {
    const view = new SessionView(store, sessionId, prices);
    const recentPage = async (): Promise<RecentTranscript> => {
      const known = await resumed;
      return (known && pageOf(known, page)) ?? store.loadRecentTranscript(sessionId, page);
    };
    const [recent, compactions, usage, blobs] = await Promise.all([
      recentPage(),
      store.listCompactionEvents(sessionId),
      store.listRequestUsage(sessionId, { items: false }),
      store.listBlobs(sessionId),
    ]);
    view.messages = recent.messages;
    view.from = recent.complete ? undefined : recent.createdAfter;
    view.compactionList = compactions;
    view.usage = usage.map(figuresOnly);
    view.requestList = view.usage.map(requestView);
    view.blobList = blobs;
    view.refold();
    return view;
  }

  /** The transcript's newest part, as stored (each message with its count). */
  get heldMessages(): readonly Message[] {
    return this.messages;
  }

  /** Older messages exist that are not held ("Show earlier" reads them). */
  get earlierUnloaded(): boolean {
    return this.from !== undefined;
  }

  get compactions(): readonly CompactionEventRecord[] {
    return this.compactionList;
  }

  /** Usage figures in request order (items left empty). */
  get usageFigures(): readonly RequestUsageRecord[] {
    return this.usage;
  }

  get requests(): readonly RequestView[] {
    return this.requestList;
  }

  get blobs(): readonly BlobInfo[] {
    return this.blobList;
  }

  /** Each offloaded result's name by ref id (those stored before the session opened once `seedTitles` ran). */
  get blobTitles(): ReadonlyMap<string, string> {
    return this.titles;
  }

  /** Names the results stored before the session opened (once; the results stored since are named as they come). */
  seedTitles(): Promise<void> {
    const unnamed = this.blobList.filter((b) => !this.titles.has(b.id));
    if (unnamed.length === 0) return Promise.resolve();
    // A store that cannot say leaves those results named by their tool (the list falls back to it).
    this.seeding ??= seededTitles(this.store, this.sessionId, unnamed, this.usage, this.messages).then(
      (titles) => {
        for (const [id, title] of titles) if (!this.titles.has(id)) this.titles.set(id, title);
        this.versions.titles++;
      },
      () => undefined,
    );
    return this.seeding;
  }

  /** Folds one write of the session into what the views show. */
  apply(change: SessionChange): void {
    switch (change.type) {
      case 'messages': {
        this.messages.push(...change.appended);
        this.chat.append(change.appended);
        if (change.replaced.length) {
          const at = new Map(this.messages.map((m, i) => [m.id, i]));
          let held = false;
          for (const m of change.replaced) {
            const i = at.get(m.id);
            if (i !== undefined) {
              this.messages[i] = m;
              held = true;
            }
          }
          if (held) this.refold();
        }
        return;
      }
      case 'usage': {
        const record = figuresOnly(change.record);
        this.usage.push(record);
        this.requestList.push(requestView(record));
        if (!this.chat.addUsage(record)) this.refold();
        return;
      }
      case 'compaction': {
        const i = this.compactionList.findIndex((c) => c.id === change.record.id);
        if (i >= 0) this.compactionList[i] = change.record;
        else this.compactionList.push(change.record);
        this.versions.compactions++;
        if (this.from === undefined || change.record.startedAt > this.from) if (!this.chat.addCompaction(change.record)) this.refold();
        if (change.working) this.markContext(change.working);
        return;
      }
      case 'result': {
        if (!this.blobList.some((b) => b.id === change.blob.id)) this.blobList.push(change.blob);
        this.titles.set(change.blob.id, titleOf(change.title));
        this.versions.titles++;
        return;
      }
    }
  }

  /** The chat marks each message as the working context (the session's messages now) holds it. */
  markContext(working: readonly Message[]): void {
    this.chat.markContext(contextMarks(working));
  }

  /** Requests of the session's subagents (read once it opened, or reported as they run): the turns they ran in count them. */
  addSubagentUsage(records: readonly RequestUsageRecord[]): void {
    for (const record of records) this.chat.addSubagentUsage(figuresOnly(record));
  }

  /** Prices changed (a setting): the turns' figures are made again. */
  setPrices(prices: Record<string, ModelPrices>): void {
    this.chat.setPrices(prices);
  }

  /**
   * Reads about `count` more of the older messages, before those held. Returns false when there
   * were none left to read.
   */
  async showEarlier(count: number): Promise<boolean> {
    if (this.from === undefined) return false;
    const from = this.from;
    const page = await this.store.loadRecentTranscript(this.sessionId, count, { createdUpTo: from });
    if (this.from !== from) return true; // another read got there first
    // More messages share one creation time than a page holds: the rest is read whole.
    const earlier = page.messages.length === 0 && !page.complete ? (await this.store.loadTranscript(this.sessionId)).filter((m) => m.createdAt <= from) : page.messages;
    const complete = page.complete || page.messages.length === 0;
    this.messages = [...earlier, ...this.messages];
    this.from = complete ? undefined : page.createdAfter;
    this.refold();
    return true;
  }

  /** The chat's entries folded again from what is held (after a write that does not fit the end). */
  private refold(): void {
    const from = this.from;
    this.chat.reset(this.messages, from === undefined ? this.compactionList : this.compactionList.filter((c) => c.startedAt > from), this.usage);
  }
}
