import type { ContextBudget } from '../accounting/budget';
import { countMessage, countMessageAsync, isCounted, reasoningTokens, withStoredCount } from '../accounting/messageTokens';
import { EMPTY_FIXED, fixedTotal, UsageBasis, type FixedComponents } from '../accounting/usageBasis';
import { defaultStrategies } from '../compaction/chain';
import { compactionResult, runCompaction, type CompactionResult, type CompactOptions } from '../compaction/compactor';
import type { CompactionEvent, CompactionListener } from '../compaction/events';
import { LocalSummarizer } from '../compaction/localSummarizer';
import { Mutex } from '../compaction/mutex';
import type { CompactionStrategy, Summarizer } from '../compaction/types';
import { totalTokens } from '../compaction/units';
import { VisibleHistory } from '../history/visibleHistory';
import { abortedToolResult, assistantMessage, userMessage } from '../model/factories';
import { newId, newRefId } from '../model/ids';
import type { Message, ReasoningBlock, ToolCall } from '../model/message';
import type { CompactionEventRecord, HistoryStep, RequestUsageRecord } from '../model/records';
import type { PromptSections } from '../prompt/promptSections';
import type { ReportedUsage } from '../providers/types';
import type { ContextSettings } from '../settings';
import { recordToolResult } from '../toolOutput/recorder';
import { ConversationItems } from './conversationItems';
import { noteEdit, trackEdits } from '../model/listLineage';
import { RequestLineage } from './requestLineage';
import { settledMessage, settleMessages } from '../model/settledMessages';
import { openCallIds, openCalls } from './openCalls';
import { RequestLedger, type RequestPlan } from './requestLedger';
import { DYNAMIC_NOTE_ID, requestContent } from './requestItems';
import { resumeSession } from './resume';
import { historyStepRecord, rewindPoint } from './rewind';
import { LastMeasure } from './lastMeasure';
import { SessionChanges, type SessionChangeListener } from './sessionChanges';
import type { BlobInfo } from '../ports/blobStore';
import type { ContextSessionOptions, PlannedRequest, PromptInput, PromptPart } from './contextSessionTypes';

/**
 * One session's working context: records messages and tool results (every call answered), measures
 * the budget, plans each request (compacting first when needed), keeps the per-request ledger, and
 * stores the transcript, compaction history and snapshots.
 */
export class ContextSession {
  /** Changed in place only with noteEdit (or replaced by a new tracked array): its followers read what changed. */
  private working: Message[] = trackEdits([]);
  private lastCreatedAt = 0;
  private ledger!: RequestLedger;
  private readonly basis = new UsageBasis((m) => m.id === DYNAMIC_NOTE_ID);
  private readonly lastMeasure = new LastMeasure();
  private observedReports = 0;
  /** The working context as the next request sends it, updated with what was appended since the last plan. */
  private readonly visible = new VisibleHistory();
  private readonly conversationItems = new ConversationItems();
  private readonly requestLineage = new RequestLineage();
  private readonly mutex = new Mutex();
  private readonly listeners = new Set<CompactionListener>();
  private readonly changes = new SessionChanges();
  /** The prompt's tokens outside the conversation, from the last prompt built. */
  private promptFixed: FixedComponents;
  private readonly strategies: CompactionStrategy[];
  private readonly summarizer: Summarizer;
  private readonly now: () => number;
  contextWindow?: number;
  maxOutputTokens?: number;
  lastCompactionId?: string;
  /** The transcript messages read to resume, until a view takes them. */
  private resumedTranscript?: { messages: Message[]; complete: boolean };

  private constructor(private readonly options: ContextSessionOptions) {
    this.strategies = options.strategies ?? defaultStrategies();
    this.summarizer = options.summarizer ?? new LocalSummarizer();
    this.now = options.now ?? Date.now;
    this.contextWindow = options.contextWindow;
    this.maxOutputTokens = options.maxOutputTokens;
    this.promptFixed = options.fixed ?? EMPTY_FIXED;
  }

  /** Opens a session where it left off (see resume.ts). */
  static async open(options: ContextSessionOptions): Promise<ContextSession> {
    const session = new ContextSession(options);
    // The encoder's ranks load in slices while the session's files are read (resuming counts
    // nothing). When every message carries its count, the session opens without waiting for them.
    const ranks = options.counter.load();
    ranks.catch(() => undefined); // a failed load fails the first count that needs it
    const resumed = await resumeSession(options.store, options.sessionId);
    if (!resumed.working.every((m) => isCounted(m, options.counter.encoding))) await ranks;
    session.working = trackEdits(settleMessages(resumed.working));
    session.lastCreatedAt = resumed.lastCreatedAt;
    session.lastCompactionId = resumed.lastCompactionId;
    if (resumed.lastRequest) session.basis.resume(resumed.lastRequest);
    session.resumedTranscript = resumed.transcript;
    session.ledger = new RequestLedger(options.store, options.sessionId, resumed.nextRequestIndex, session.now, (record) => session.changes.emit({ type: 'usage', record }));
    return session;
  }

  /**
   * The transcript messages read to resume (all of them, or those after the snapshot), handed
   * over once so a view need not read them again; undefined after the first call.
   */
  takeResumedTranscript(): { messages: readonly Message[]; complete: boolean } | undefined {
    const taken = this.resumedTranscript;
    this.resumedTranscript = undefined;
    return taken;
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  get settings(): ContextSettings {
    return this.options.settings;
  }

  /** Index the next recorded request will get. */
  get nextRequestIndex(): number {
    return this.ledger.nextRequestIndex;
  }

  /** reported ÷ estimated for this session's model. */
  get calibration() {
    return this.basis.calibration;
  }

  /** The working context, as the agent sees it (hidden messages included, flagged). */
  get messages(): readonly Message[] {
    return this.working;
  }

  /** The prompt's tokens outside the conversation (system, skills, tools), from the last prompt built. */
  get fixed(): FixedComponents {
    return this.promptFixed;
  }

  /** Every write, with what it wrote: messages, usage records, compaction events, stored results. */
  onChange(listener: SessionChangeListener): () => void {
    return this.changes.on(listener);
  }

  onCompaction(listener: CompactionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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

  readonly count = (message: Message): number => countMessage(message, this.options.counter); // what the request counts each message with

  private stamp(message: Message): Message {
    const createdAt = Math.max(this.now(), this.lastCreatedAt + 1);
    this.lastCreatedAt = createdAt;
    return { ...message, createdAt };
  }

  /** Stores messages with their counts; returns them as stored (what the views are told). */
  private async persist(messages: readonly Message[]): Promise<Message[]> {
    const stored = messages.map((m) => withStoredCount(m, this.options.counter));
    await this.options.store.putMessages(this.sessionId, stored);
    return stored;
  }

  private saveSnapshot(compactionId: string, tokenCount: number): Promise<void> {
    const messages = this.working.map((m) => withStoredCount(m, this.options.counter));
    return this.options.store.saveSnapshot({ sessionId: this.sessionId, messages, tokenCount, compactionId, createdAt: this.lastCreatedAt });
  }

  // ---- write path: every call gets exactly one output ----

  /**
   * Records messages: before a new non-tool message, every open call gets an "aborted" output; a
   * tool output whose call is not open is refused.
   */
  append(...messages: Message[]): Promise<Message[]> {
    return this.mutex.run(async () => {
      const recorded: Message[] = [];
      for (const incoming of messages) {
        if (incoming.role === 'tool') {
          if (!incoming.toolCallId || !this.openCallIds().has(incoming.toolCallId)) {
            throw new Error(`tool output for unknown or already answered call "${incoming.toolCallId ?? ''}" was refused`);
          }
        } else {
          recorded.push(...this.closeOpenCalls('the call was interrupted before it returned a result'));
        }
        const message = this.stamp(incoming);
        await countMessageAsync(message, this.options.counter);
        this.working.push(settledMessage(message));
        noteEdit(this.working, this.working.length - 1);
        recorded.push(message);
      }
      this.changes.emit({ type: 'messages', appended: await this.persist(recorded), replaced: [] });
      return recorded;
    });
  }

  /** Records the user's message, after what they attached to it; returns it (not the aborted outputs or attachments before it). */
  async appendUser(text: string, attachments: readonly Message[] = []): Promise<Message> {
    const recorded = await this.append(...attachments, userMessage(text));
    return recorded[recorded.length - 1];
  }

  async appendAssistant(text: string, calls: readonly ToolCall[] = [], reasoning: readonly ReasoningBlock[] = []): Promise<Message> {
    const message = assistantMessage(text, calls);
    if (reasoning.length) {
      message.reasoning = [...reasoning];
      message.meta = { ...message.meta, reasoningTokens: reasoningTokens(message, (t) => this.options.counter.count(t)) };
    }
    const recorded = await this.append(message);
    return recorded[recorded.length - 1];
  }

  /**
   * Truncates / offloads a tool's output and records it as the call's result. `isError`: the tool
   * failed; `denied`: the user refused the call.
   */
  async recordToolResult(call: ToolCall, output: string | Uint8Array, result: { isError?: boolean; denied?: boolean } = {}): Promise<Message> {
    const { isError = false, denied = false } = result;
    const onStored = (blob: BlobInfo) => this.changes.emit({ type: 'result', blob, title: { toolName: call.name, arguments: call.arguments, requestIndex: this.nextRequestIndex } });
    const message = await recordToolResult({ store: this.options.store, sessionId: this.sessionId, call, output, isError, denied, settings: this.settings, now: this.now, onStored });
    const [recorded] = await this.append(message);
    return recorded;
  }

  /** A result stored outside a tool call (an attachment stored when attached): the views list it now, named for the next request. */
  resultStored(blob: BlobInfo, toolName: string, args?: string): void {
    this.changes.emit({ type: 'result', blob, title: { toolName, arguments: args, requestIndex: this.nextRequestIndex } });
  }

  /** Tool calls of the latest assistant message that have no output yet. */
  openCallIds(): Set<string> {
    return openCallIds(this.working);
  }

  /** "Aborted" outputs for every open call, in the working context only (the caller persists). */
  private closeOpenCalls(reason: string): Message[] {
    const added = openCalls(this.working).map((call) => settledMessage(this.stamp(abortedToolResult(call, reason))));
    this.working.push(...added);
    noteEdit(this.working, this.working.length - added.length);
    return added;
  }

  /** Gives every open call an "aborted" output now (cancellation, failed request). */
  abortOpenCalls(reason = 'cancelled by the user'): Promise<Message[]> {
    return this.mutex.run(async () => {
      const added = this.closeOpenCalls(reason);
      if (added.length) {
        this.changes.emit({ type: 'messages', appended: await this.persist(added), replaced: [] });
      }
      return added;
    });
  }

  // ---- requests: measure, compact when needed, plan, record ----

  /**
   * The budget for the current working context. Once the provider reported usage, the total is that
   * report plus the estimate of what changed since.
   */
  measure(fixed: FixedComponents = this.promptFixed): ContextBudget {
    const inputs = { working: this.working, fixed, contextWindow: this.contextWindow, maxOutputTokens: this.maxOutputTokens, observed: this.observedReports };
    return this.lastMeasure.get(inputs, () => this.basis.measure({ working: this.working, fixed, count: this.count, settings: this.settings, contextWindow: this.contextWindow, maxOutputTokens: this.maxOutputTokens }));
  }

  /** The figure the meter would show for another working context (a compaction's outcome), on the same basis. */
  private measureOf(working: readonly Message[], fixed: FixedComponents): number {
    return this.basis.measure({ working, fixed, count: this.count, settings: this.settings, contextWindow: this.contextWindow, maxOutputTokens: this.maxOutputTokens }).used;
  }

  /**
   * What the next request would carry now (visible messages only, normalized so every call has
   * its output even if something went wrong upstream), with the prompt's dynamic part in place and
   * every item of the request. Changes nothing; for views and checks. `measured`: the budget of this
   * working context with these fixed components, when the caller just measured it.
   */
  planRequest(fixed: FixedComponents = this.promptFixed, sections?: PromptSections, measured?: ContextBudget): RequestPlan {
    const visible = this.visible.view(this.working);
    const { messages, items } = requestContent({ messages: visible.messages, sections, fixed, count: this.count, reuse: this.conversationItems, lineage: this.requestLineage });
    return { messages, items, budget: measured ?? this.measure(fixed), repaired: visible.repaired };
  }

  /**
   * The next request, in the only right order: build the prompt for the room left, compact when the
   * budget says so (blocked when still over the hard limit), rebuild the prompt after a compaction,
   * then plan the messages. Unless it is blocked, send `plan.messages`, then call recordResponse.
   */
  async nextRequest<P extends PromptPart>(prompt: PromptInput<P>, signal?: AbortSignal): Promise<PlannedRequest<P>> {
    const build = typeof prompt === 'function' ? prompt : undefined;
    const roomOf = (budget: ContextBudget) => ({ effectiveWindow: budget.effectiveWindow, percentUsed: budget.percent });
    let prepared = build ? await build(roomOf(this.measure(EMPTY_FIXED))) : (prompt as P);
    this.promptFixed = prepared.fixed;
    // Measured once per step: no await stands between a measure and the plan that reuses it.
    let budget = this.measure(prepared.fixed);
    let compaction: CompactionResult | undefined;
    let blocked = false;
    if (budget.shouldCompact()) {
      compaction = await this.compact({ trigger: budget.isBlocked() ? 'blocked' : 'auto', fixed: prepared.fixed, signal });
      budget = this.measure(prepared.fixed);
      blocked = budget.isBlocked();
    }
    const compactionId = compaction?.status === 'complete' ? compaction.id : undefined;
    if (compactionId && build && !blocked) {
      prepared = await build(roomOf(budget));
      this.promptFixed = prepared.fixed;
      budget = this.measure(prepared.fixed);
    }
    return { status: blocked ? 'blocked' : 'ready', prompt: prepared, plan: this.planRequest(prepared.fixed, prepared.sections, budget), requestIndex: this.nextRequestIndex, compaction, compactionId, recovered: false };
  }

  /**
   * The provider said the request was too long although the estimate fit: compact and plan it again
   * (same prompt). Returns the request to send instead.
   */
  async recoverFromOverflow<P extends PromptPart>(request: PlannedRequest<P>, signal?: AbortSignal): Promise<PlannedRequest<P>> {
    const recovery = await this.compact({ trigger: 'overflow', fixed: request.prompt.fixed, signal });
    return {
      ...request,
      plan: this.planRequest(request.prompt.fixed, request.prompt.sections),
      requestIndex: this.nextRequestIndex,
      compaction: recovery,
      compactionId: recovery.status === 'complete' ? recovery.id : request.compactionId,
      recovered: true,
    };
  }

  /** Records a request that was sent, with the provider's usage when it reported one. */
  async recordResponse(request: PlannedRequest, response: { model: string; reported?: ReportedUsage }): Promise<RequestUsageRecord> {
    const record = await this.ledger.record({ plan: request.plan, model: response.model, reported: response.reported, compactionId: request.compactionId, sections: request.prompt.sections });
    // The basis compares the messages of this request with the working context later: whole counts, the note left out.
    this.basis.observe({ budget: request.plan.budget, messages: request.plan.messages, count: this.count, reportedInputTokens: response.reported?.inputTokens });
    this.observedReports++;
    return record;
  }

  // ---- compaction and pinning ----

  /** Runs (or, with dryRun, previews) a compaction and stores its outcome. */
  compact(options: CompactOptions): Promise<CompactionResult> {
    return this.mutex.run(async () => {
      const dryRun = Boolean(options.dryRun);
      const id = newId('c');
      const fixed = options.fixed ?? this.promptFixed;
      const outcome = await runCompaction({
        id,
        sessionId: this.sessionId,
        history: this.working,
        openCallIds: this.openCallIds(),
        budget: this.measure(fixed),
        options: { ...options, fixed },
        settings: this.settings,
        strategies: this.strategies,
        summarizer: this.summarizer,
        reinjectInstructions: this.options.reinjectInstructions?.(),
        countTokens: this.count,
        measure: (messages) => this.measureOf(messages, fixed),
        offload: (content, toolName, toolCallId) => this.offload(content, toolName, toolCallId, dryRun),
        newId: () => newId('m'),
        now: this.now,
        emit: (event) => this.emit(event),
      });
      const { event } = outcome;
      if (event.status === 'error') {
        if (!dryRun) {
          const stored = await this.options.store.addCompactionEvent(event).then(() => true, () => false);
          if (stored) this.changes.emit({ type: 'compaction', record: event });
        }
        this.emit({ type: 'error', id, error: event.error ?? '', record: event });
        return compactionResult(outcome, dryRun);
      }
      if (!dryRun) {
        if (outcome.changed) {
          this.working = trackEdits(settleMessages([...outcome.messages]));
          this.lastCompactionId = id;
          await this.saveSnapshot(id, event.estimatedTokensAfter ?? event.tokensAfter);
        }
        // An automatic check that found nothing to remove is not a compaction; a user's request is recorded either way.
        if (outcome.changed || options.trigger !== 'auto') {
          await this.options.store.addCompactionEvent(event);
          this.changes.emit({ type: 'compaction', record: event });
        }
      }
      this.emit({ type: 'complete', id, record: event, dryRun });
      return compactionResult(outcome, dryRun);
    });
  }

  private async offload(content: string, toolName: string, toolCallId: string | undefined, dryRun: boolean): Promise<string | undefined> {
    if (dryRun) return newRefId(); // same shape as a real ref, so the preview counts the same
    try {
      const info = await this.options.store.putBlob(this.sessionId, { toolName, toolCallId, content: new TextEncoder().encode(content) });
      const call = toolCallId === undefined ? undefined : this.working.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === toolCallId);
      this.changes.emit({ type: 'result', blob: info, title: { toolName, arguments: call?.arguments, requestIndex: this.nextRequestIndex } });
      return info.id;
    } catch {
      return undefined; // the transcript still holds the original
    }
  }

  /**
   * Rewind: the working context goes back to exactly what preceded a user message (refused when a
   * compaction summarized it away: rewind.ts). The transcript keeps everything; the step is an
   * entry of the history, and a snapshot, so a resume starts from here. `files`: what a restore done with it put back.
   */
  rewind(messageId: string, files?: Pick<HistoryStep, 'checkpointId' | 'files'>): Promise<CompactionEventRecord> {
    return this.mutex.run(() => this.addStep({ kind: 'rewind', messageId, ...files }, this.working.slice(0, rewindPoint(this.working, messageId))));
  }

  /** Records a user's step that left the context as it is (files restored to a checkpoint). */
  recordStep(step: HistoryStep): Promise<CompactionEventRecord> {
    return this.mutex.run(() => this.addStep(step));
  }

  /** Stores a user's step as an entry of the history; `after`: the working context it leaves (a snapshot, so a resume starts there). */
  private async addStep(step: HistoryStep, after?: Message[]): Promise<CompactionEventRecord> {
    const fixed = this.promptFixed;
    // The entry is placed after every message so far, and the next message after it.
    this.lastCreatedAt = Math.max(this.now(), this.lastCreatedAt + 1);
    const record = historyStepRecord({
      id: newId('c'), sessionId: this.sessionId, step, startedAt: this.lastCreatedAt, before: this.working, after: after ?? this.working,
      measure: (messages) => this.measureOf(messages, fixed),
      estimate: (messages) => fixedTotal(fixed) + totalTokens(messages, this.count),
    });
    if (after) {
      this.working = trackEdits(settleMessages(after));
      this.lastCompactionId = record.id;
      await this.saveSnapshot(record.id, record.estimatedTokensAfter ?? record.tokensAfter);
    }
    await this.options.store.addCompactionEvent(record);
    this.changes.emit({ type: 'compaction', record });
    return record;
  }

  /** Pins or unpins an item so compaction leaves it alone. */
  setPinned(messageId: string, pinned: boolean): Promise<boolean> {
    return this.mutex.run(async () => {
      const index = this.working.findIndex((m) => m.id === messageId);
      if (index < 0) return false;
      const updated = settledMessage({ ...this.working[index], pinned });
      this.working[index] = updated;
      noteEdit(this.working, index);
      // Synthetic items (summaries, pointers) live only in the working context and its snapshot.
      if (!updated.meta?.replaces && !updated.meta?.synthetic) {
        this.changes.emit({ type: 'messages', appended: [], replaced: await this.persist([updated]) });
      }
      if (this.lastCompactionId) await this.saveSnapshot(this.lastCompactionId, totalTokens(this.working, this.count));
      return true;
    });
  }
}
