import { DELEGATE_TOOL_NAME } from '../../core/agent/subagents/delegateTool';
import type { SessionChange } from '../../core/context/sessionChanges';
import type { Message } from '../../core/model/message';
import { compactionHead, type CompactionHead } from '../../core/model/compactionHead';
import type { RequestUsageRecord } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import type { RecentTranscript } from '../../core/ports/sessionStore';
import { compactionView, type CompactionView, type RequestView } from '../../protocol/inspector';
import { titleOf } from '../inspector/resultNames';
import type { StoredSession } from './sessionInputs';

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

/** Usage figures without the item list (the views need only the figures; items are read when a request is opened). */
export function figuresOnly(record: RequestUsageRecord): RequestUsageRecord {
  return record.items.length === 0 ? record : { ...record, itemCount: record.itemCount ?? record.items.length, items: [] };
}

/** What one write changed of the records, for the inspector. */
export interface RecordsChange {
  requests?: boolean;
  blobs?: boolean;
  titles?: Record<string, string>;
  compactions?: boolean;
  messages?: boolean;
  /** A delegate call was recorded: the session's subagents change. */
  delegated?: boolean;
}

/**
 * The records the views show of a session, as the store holds them: the newest part of the
 * transcript (each message with its count), the requests by their figures, the compactions (with
 * the inspector's view of each, newest first), the offloaded results and their names. Read once
 * when the session opens, then kept by its writes; each write costs what it wrote (a message
 * written again is found by its id, a result by its id), never a pass over the session.
 */
export class SessionRecords {
  private messages: Message[] = [];
  /** Where each held message stands in `messages`, by id. */
  private positions = new Map<string, number>();
  /** When not the whole transcript: the held messages are those created after this time. */
  private from?: number;
  /** The compactions' heads: their whole lists are read from the store when asked for. */
  private compactionList: CompactionHead[] = [];
  private compactionViewList: CompactionView[] = [];
  private usage: RequestUsageRecord[] = [];
  private requestList: RequestView[] = [];
  private blobList: BlobInfo[] = [];
  private blobIds = new Set<string>();
  private titles = new Map<string, string>();

  load(stored: StoredSession): void {
    this.hold(stored.page.messages, stored.page);
    this.compactionList = stored.compactions.map(compactionHead);
    this.compactionViewList = [...this.compactionList].sort((a, b) => b.startedAt - a.startedAt).map(compactionView);
    this.usage = stored.usage.map(figuresOnly);
    this.requestList = this.usage.map(requestView);
    this.blobList = [...stored.blobs];
    this.blobIds = new Set(this.blobList.map((b) => b.id));
  }

  /** Older messages read for "Show earlier", which go before those held. */
  prepend(page: RecentTranscript): void {
    this.hold([...page.messages, ...this.messages], page);
  }

  private hold(messages: Message[], page: Pick<RecentTranscript, 'complete' | 'createdAfter'>): void {
    this.messages = messages;
    this.positions = new Map(messages.map((m, i) => [m.id, i]));
    this.from = page.complete ? undefined : page.createdAfter;
  }

  /** Folds one write. */
  apply(change: SessionChange): RecordsChange {
    switch (change.type) {
      case 'messages': {
        for (const m of change.appended) {
          this.positions.set(m.id, this.messages.length);
          this.messages.push(m);
        }
        for (const m of change.replaced) {
          const at = this.positions.get(m.id);
          if (at !== undefined) this.messages[at] = m;
        }
        const delegated = change.appended.some((m) => m.toolCalls?.some((c) => c.name === DELEGATE_TOOL_NAME));
        return { messages: true, ...(delegated ? { delegated } : {}) };
      }
      case 'usage': {
        const record = figuresOnly(change.record);
        this.usage.push(record);
        this.requestList.push(requestView(record));
        return { requests: true };
      }
      case 'compaction': {
        const record = compactionHead(change.record);
        const at = this.compactionList.findIndex((c) => c.id === record.id);
        if (at >= 0) this.compactionList[at] = record;
        else this.compactionList.push(record);
        const view = compactionView(record);
        const shown = this.compactionViewList.findIndex((c) => c.id === record.id);
        if (shown >= 0) this.compactionViewList[shown] = view;
        else {
          let place = 0;
          while (place < this.compactionViewList.length && this.compactionViewList[place].startedAt >= record.startedAt) place++;
          this.compactionViewList.splice(place, 0, view);
        }
        return { compactions: true };
      }
      case 'result': {
        const title = titleOf(change.title);
        if (!this.blobIds.has(change.blob.id)) {
          this.blobIds.add(change.blob.id);
          this.blobList.push(change.blob);
        }
        this.titles.set(change.blob.id, title);
        return { blobs: true, titles: { [change.blob.id]: title } };
      }
    }
  }

  /** Names of results stored before the session opened; a name given since is kept. Returns those taken. */
  addTitles(titles: ReadonlyMap<string, string>): Record<string, string> {
    const taken: Record<string, string> = {};
    for (const [id, title] of titles) {
      if (this.titles.has(id)) continue;
      this.titles.set(id, title);
      taken[id] = title;
    }
    return taken;
  }

  /** The transcript's newest part, as stored (each message with its count). */
  get heldMessages(): readonly Message[] {
    return this.messages;
  }

  /** When not the whole transcript is held: the held messages are those created after this time. */
  get heldFrom(): number | undefined {
    return this.from;
  }

  get compactions(): readonly CompactionHead[] {
    return this.compactionList;
  }

  /** The inspector's view of each compaction, newest first. */
  get compactionViews(): readonly CompactionView[] {
    return this.compactionViewList;
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

  /** Each offloaded result's name by ref id. */
  get blobTitles(): ReadonlyMap<string, string> {
    return this.titles;
  }
}
