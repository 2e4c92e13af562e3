import type { BlobInfo } from '../ports/blobStore';
import type { ContextBudget } from '../accounting/budget';
import { adoptStoredCounts } from '../accounting/messageTokens';
import { fixedTotal, type FixedComponents } from '../accounting/usageBasis';
import { compactionResult, runCompaction, type CompactionResult, type CompactOptions } from '../compaction/compactor';
import type { CompactionEvent, CompactionListener } from '../compaction/events';
import type { Mutex } from '../compaction/mutex';
import type { CompactionStrategy, Summarizer } from '../compaction/types';
import { totalTokens } from '../compaction/units';
import { newId, newRefId } from '../model/ids';
import { noteEdit } from '../model/listLineage';
import type { Message, ToolCall } from '../model/message';
import type { CompactionEventRecord, CompactionTrigger, HistoryStep } from '../model/records';
import { settledMessage } from '../model/settledMessages';
import type { SessionStore } from '../ports/sessionStore';
import type { ContextSettings } from '../settings';
import { addedItems, placeAdded } from './addedItems';
import { referencedResults } from './forkSession';
import { HistoryArchive } from './historyArchive';
import { historyStepRecord, planRewind, type RewindPlan } from './rewind';
import type { SessionChanges } from './sessionChanges';

/** What editing the history reads and changes of the session it belongs to. */
export interface EditedSession {
  readonly sessionId: string;
  readonly settings: ContextSettings;
  readonly store: SessionStore;
  readonly changes: SessionChanges;
  /** The session's one queue of writes: an edit waits for appends, and they for it. */
  readonly mutex: Mutex;
  readonly now: () => number;
  readonly count: (message: Message) => number;
  /** The working context now; changed in place only with noteEdit. */
  readonly working: Message[];
  readonly promptFixed: FixedComponents;
  readonly lastCompactionId?: string;
  openCallIds(): Set<string>;
  /** Tells the views of a result stored whole, named for the next request. */
  resultStored(blob: BlobInfo, toolName: string, args?: string): void;
  measure(fixed: FixedComponents): ContextBudget;
  /** The figure the meter would show for another working context, on the same basis. */
  measureOf(working: readonly Message[], fixed: FixedComponents): number;
  /** A creation time after every message so far (the next message is placed after it). */
  nextCreatedAt(): number;
  /** Stores messages with their counts; returns them as stored. */
  persist(messages: readonly Message[]): Promise<Message[]>;
  /** A message with its count, as stored. */
  stored(message: Message): Message;
  saveSnapshot(compactionId: string, tokenCount: number): Promise<void>;
  /** The working context becomes `after` (a new tracked list) as left by an edit, saved as a snapshot. */
  replaceWorking(after: readonly Message[], compactionId: string, tokenCount: number): Promise<void>;
}

/** Awaited before a compaction runs (not a preview): what it returns goes to the summary request. */
export type BeforeCompaction = (compaction: { trigger: CompactionTrigger; focus?: string }, signal?: AbortSignal) => Promise<{ instructions?: string }>;

/**
 * Edits of a session's history: compactions (run or previewed, their events told to listeners),
 * the user's steps (rewind, restore) recorded beside them, and pinning an item.
 */
export class HistoryEdits {
  private readonly listeners = new Set<CompactionListener>();
  private readonly before = new Set<BeforeCompaction>();

  constructor(
    private readonly session: EditedSession,
    private readonly compaction: { strategies: CompactionStrategy[]; summarizer: Summarizer; reinjectInstructions?: () => string | undefined },
  ) {}

  /** Compaction events as they happen; `before`: awaited before each compaction that is not a preview. */
  onCompaction(listener: CompactionListener, before?: BeforeCompaction): () => void {
    this.listeners.add(listener);
    if (before) this.before.add(before);
    return () => {
      this.listeners.delete(listener);
      if (before) this.before.delete(before);
    };
  }

  /** What the `before` callbacks asked the summary to keep in mind, one paragraph each. */
  private async beforeCompacting(options: CompactOptions): Promise<string | undefined> {
    if (options.dryRun) return undefined;
    const said = await Promise.all([...this.before].map((before) => before({ trigger: options.trigger, ...(options.focus ? { focus: options.focus } : {}) }, options.signal).catch(() => ({ instructions: undefined }))));
    const instructions = said.map((s) => s.instructions).filter((text): text is string => Boolean(text));
    return instructions.length ? instructions.join('\n\n') : undefined;
  }

  private emit(event: CompactionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not break the session.
      }
    }
  }

  /** Runs (or, with dryRun, previews) a compaction and stores its outcome. */
  compact(options: CompactOptions): Promise<CompactionResult> {
    const session = this.session;
    return session.mutex.run(async () => {
      const dryRun = Boolean(options.dryRun);
      const instructions = await this.beforeCompacting(options);
      const id = newId('c');
      const fixed = options.fixed ?? session.promptFixed;
      // The calls whose results are stored are looked up by id, the index made once per run (not a walk per result).
      let calls: Map<string, ToolCall> | undefined;
      const callsById = () => (calls ??= new Map(session.working.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c])));
      const outcome = await runCompaction({
        id,
        sessionId: session.sessionId,
        history: session.working,
        openCallIds: session.openCallIds(),
        budget: session.measure(fixed),
        options: { ...options, fixed, ...(instructions ? { instructions } : {}) },
        settings: session.settings,
        strategies: this.compaction.strategies,
        summarizer: this.compaction.summarizer,
        reinjectInstructions: this.compaction.reinjectInstructions?.(),
        countTokens: session.count,
        measure: (messages) => session.measureOf(messages, fixed),
        offload: (content, toolName, toolCallId) => this.offload(content, toolName, toolCallId, toolCallId === undefined ? undefined : callsById().get(toolCallId), dryRun),
        newId: () => newId('m'),
        now: session.now,
        emit: (event) => this.emit(event),
      });
      const { event } = outcome;
      if (event.status === 'error') {
        if (!dryRun) {
          const stored = await session.store.addCompactionEvent(event).then(() => true, () => false);
          if (stored) session.changes.emit({ type: 'compaction', record: event });
        }
        this.emit({ type: 'error', id, error: event.error ?? '', record: event });
        return compactionResult(outcome, dryRun);
      }
      if (!dryRun) {
        Object.assign(event, options.review?.(event));
        if (outcome.changed) {
          const after = placeAdded(session.working, outcome.messages);
          const added = addedItems(session.working, after).map((item) => ({ ...item, message: session.stored(item.message) }));
          if (added.length) event.added = added;
          await session.replaceWorking(after, id, event.estimatedTokensAfter ?? event.tokensAfter);
        }
        // An automatic check that found nothing to remove is not a compaction; a user's request is recorded either way.
        if (outcome.changed || options.trigger !== 'auto' || event.autoStopped) {
          await session.store.addCompactionEvent(event);
          session.changes.emit({ type: 'compaction', record: event });
        }
      }
      this.emit({ type: 'complete', id, record: event, dryRun });
      return compactionResult(outcome, dryRun);
    });
  }

  private async offload(content: string, toolName: string, toolCallId: string | undefined, call: ToolCall | undefined, dryRun: boolean): Promise<string | undefined> {
    if (dryRun) return newRefId(); // same shape as a real ref, so the preview counts the same
    const session = this.session;
    try {
      const info = await session.store.putBlob(session.sessionId, { toolName, toolCallId, content: new TextEncoder().encode(content) });
      session.resultStored(info, toolName, call?.arguments);
      return info.id;
    } catch {
      return undefined; // the transcript still holds the original
    }
  }

  /** See ContextSession.planRewind. */
  planRewind(messageId: string): Promise<RewindPlan> {
    const session = this.session;
    return session.mutex.run(async () => planRewind(session.working, messageId, await HistoryArchive.read(session.store, session.sessionId)));
  }

  /** See ContextSession.rewind. */
  rewind(messageId: string, files?: Pick<HistoryStep, 'checkpointId' | 'files'>): Promise<CompactionEventRecord> {
    const session = this.session;
    return session.mutex.run(async () => {
      const plan = await planRewind(session.working, messageId, await HistoryArchive.read(session.store, session.sessionId));
      adoptStoredCounts(plan.messages); // what came back from the store carries its counts
      await this.adoptBorrowed(plan.borrowed);
      const counts = { setAside: plan.setAside, ...(plan.unsummarized ? { unsummarized: plan.unsummarized } : {}) };
      return this.addStep({ kind: 'rewind', messageId, ...files, ...counts }, plan.messages);
    });
  }

  /**
   * Items a rewind brought back from the session this one was forked from: the stored results they
   * name are shared with this session, and the transcript messages among them join its transcript.
   */
  private async adoptBorrowed(borrowed: RewindPlan['borrowed']): Promise<void> {
    if (!borrowed.length) return;
    const session = this.session;
    const byOrigin = new Map<string, Message[]>();
    for (const { message, fromSessionId } of borrowed) byOrigin.set(fromSessionId, [...(byOrigin.get(fromSessionId) ?? []), message]);
    for (const [from, messages] of byOrigin) await session.store.shareBlobs(from, session.sessionId, referencedResults(messages));
    const own = borrowed.filter((b) => b.inTranscript).map((b) => b.message);
    if (own.length) session.changes.emit({ type: 'messages', appended: [], replaced: await session.persist(own) });
  }

  /** Records a user's step that left the context as it is (files restored to a checkpoint). */
  recordStep(step: HistoryStep): Promise<CompactionEventRecord> {
    return this.session.mutex.run(() => this.addStep(step));
  }

  /** Stores a user's step as an entry of the history; `after`: the working context it leaves (a snapshot, so a resume starts there). */
  private async addStep(step: HistoryStep, after?: Message[]): Promise<CompactionEventRecord> {
    const session = this.session;
    const fixed = session.promptFixed;
    const before = session.working;
    const record = historyStepRecord({
      id: newId('c'), sessionId: session.sessionId, step, startedAt: session.nextCreatedAt(), before, after: after ?? before,
      measure: (messages) => session.measureOf(messages, fixed),
      estimate: (messages) => fixedTotal(fixed) + totalTokens(messages, session.count),
    });
    if (after) await session.replaceWorking(after, record.id, record.estimatedTokensAfter ?? record.tokensAfter);
    await session.store.addCompactionEvent(record);
    session.changes.emit({ type: 'compaction', record });
    return record;
  }

  /** Pins or unpins an item so compaction leaves it alone. */
  setPinned(messageId: string, pinned: boolean): Promise<boolean> {
    const session = this.session;
    return session.mutex.run(async () => {
      const working = session.working;
      const index = working.findIndex((m) => m.id === messageId);
      if (index < 0) return false;
      const updated = settledMessage({ ...working[index], pinned });
      working[index] = updated;
      noteEdit(working, index);
      // Synthetic items (summaries, pointers) live only in the working context and its snapshot.
      if (!updated.meta?.replaces && !updated.meta?.synthetic) {
        session.changes.emit({ type: 'messages', appended: [], replaced: await session.persist([updated]) });
      }
      if (session.lastCompactionId) await session.saveSnapshot(session.lastCompactionId, totalTokens(session.working, session.count));
      return true;
    });
  }
}
