import type { ContextBudget } from '../accounting/budget';
import { countMessage, countMessageAsync, isCounted, reasoningTokens, withStoredCount } from '../accounting/messageTokens';
import { EMPTY_FIXED, UsageBasis, type FixedComponents } from '../accounting/usageBasis';
import { defaultStrategies } from '../compaction/chain';
import type { CompactionResult, CompactOptions } from '../compaction/compactor';
import type { CompactionListener } from '../compaction/events';
import { LocalSummarizer } from '../compaction/localSummarizer';
import { Mutex } from '../compaction/mutex';
import { VisibleHistory } from '../history/visibleHistory';
import { nextTurn } from '../nextTurn';
import { abortedToolResult, assistantMessage, userMessage } from '../model/factories';
import type { Denial, Message, ReasoningBlock, ToolCall } from '../model/message';
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
import { HistoryEdits, type BeforeCompaction, type EditedSession } from './historyEdits';
import { LastMeasure } from './lastMeasure';
import type { RewindPlan } from './rewind';
import { SessionChanges, type SessionChangeListener } from './sessionChanges';
import type { BlobInfo } from '../ports/blobStore';
import { storeImages } from '../images/imageData';
import type { ContextSessionOptions, PlannedRequest, PromptInput, PromptPart } from './contextSessionTypes';
import { AutoCompactionGuard } from './autoCompaction';
import { planNextRequest, type NextRequestOptions } from './nextRequest';

/**
 * One session's working context: records messages and tool results (every call answered), measures
 * the budget, plans each request (compacting first when needed), keeps the per-request ledger, and
 * stores the transcript and snapshots. Editing the history (compaction, rewind and restore steps,
 * pinning) is HistoryEdits' job (historyEdits.ts), on this session's working context and queue of writes.
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
  private readonly changes = new SessionChanges();
  private readonly edits: HistoryEdits;
  /** The prompt's tokens outside the conversation, from the last prompt built. */
  private promptFixed: FixedComponents;
  /** The sections of the prompt that gave `promptFixed`, when it was built in this session (a plan of the next request lists them item by item). */
  private promptSections?: PromptSections;
  private readonly now: () => number;
  contextWindow?: number;
  maxOutputTokens?: number;
  lastCompactionId?: string;
  /** Whether the session may compact by itself now (the setting, and the guard against compaction loops). */
  readonly autoCompaction: AutoCompactionGuard;
  /** The transcript messages read to resume, until a view takes them. */
  private resumedTranscript?: { messages: Message[]; complete: boolean };

  private constructor(private readonly options: ContextSessionOptions) {
    this.now = options.now ?? Date.now;
    this.contextWindow = options.contextWindow;
    this.maxOutputTokens = options.maxOutputTokens;
    this.promptFixed = options.fixed ?? EMPTY_FIXED;
    this.autoCompaction = new AutoCompactionGuard(() => options.settings.autoCompact);
    this.edits = new HistoryEdits(this.editedSession(), {
      strategies: options.strategies ?? defaultStrategies(),
      summarizer: options.summarizer ?? new LocalSummarizer(),
      reinjectInstructions: options.reinjectInstructions,
    });
  }

  /** What editing the history reads and changes of this session. */
  private editedSession(): EditedSession {
    const session = this; // the getters read the session's fields as they are when read
    return {
      sessionId: this.sessionId,
      settings: this.settings,
      store: this.options.store,
      changes: this.changes,
      mutex: this.mutex,
      now: this.now,
      count: this.count,
      get working() { return session.working; },
      get promptFixed() { return session.promptFixed; },
      get lastCompactionId() { return session.lastCompactionId; },
      openCallIds: () => this.openCallIds(),
      resultStored: (blob, toolName, args) => this.resultStored(blob, toolName, args),
      measure: (fixed) => this.measure(fixed),
      measureOf: (working, fixed) => this.measureOf(working, fixed).used,
      nextCreatedAt: () => this.nextCreatedAt(),
      persist: (messages) => this.persist(messages),
      stored: (message) => withStoredCount(message, this.options.counter),
      saveSnapshot: (compactionId, tokenCount) => this.saveSnapshot(compactionId, tokenCount),
      replaceWorking: (after, compactionId, tokenCount) => this.replaceWorking(after, compactionId, tokenCount),
    };
  }

  /** Opens a session where it left off (see resume.ts). */
  static async open(options: ContextSessionOptions): Promise<ContextSession> {
    const session = new ContextSession(options);
    // The encoder's ranks load while the files are read, unless the caller starts them once the first
    // state shows; when every message carries its count, the open does not wait for them.
    const ranks = options.encoderAfterFirstState ? undefined : options.counter.load();
    ranks?.catch(() => undefined); // a failed load fails the first count that needs it
    const resumed = await resumeSession(options.store, options.sessionId, options.lastRequest, options.beforeWholeTranscript);
    if (!resumed.working.every((m) => isCounted(m, options.counter.encoding))) await (ranks ?? options.counter.load());
    session.working = trackEdits(settleMessages(resumed.working));
    session.lastCreatedAt = resumed.lastCreatedAt;
    session.lastCompactionId = resumed.lastCompactionId;
    if (resumed.lastRequest) session.basis.resume(resumed.lastRequest);
    session.resumedTranscript = resumed.transcript;
    session.ledger = new RequestLedger(options.store, options.sessionId, resumed.nextRequestIndex, session.now, (record) => session.changes.emit({ type: 'usage', record }));
    void session.prepareFirstReport();
    return session;
  }

  /**
   * A reopened session's first report compares what the request carried with what was sent before
   * (by message id): the maps of both are made now, a slice at a time, instead of in one block on
   * the first turn.
   */
  private async prepareFirstReport(): Promise<void> {
    await nextTurn();
    const working = this.working;
    await this.basis.prepare(working, this.visible.view(working).messages, this.count).catch(() => undefined);
  }

  /** The transcript messages read to resume (all, or those after the snapshot), handed over once; then undefined. */
  takeResumedTranscript(): { messages: readonly Message[]; complete: boolean } | undefined {
    const taken = this.resumedTranscript;
    this.resumedTranscript = undefined;
    return taken;
  }

  /**
   * Starts loading the encoder's ranks in the background, for the next message to count; a failed
   * load fails the first count that needs it. Called once the session's first state is shown.
   */
  loadEncoder(): void {
    this.options.counter.load().catch(() => undefined);
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

  /** The prompt's fixed part before any request was sent: the figures then count the first request's system prompt and tools. */
  notePromptFixed(fixed: FixedComponents, sections?: PromptSections): void {
    this.promptFixed = fixed;
    this.promptSections = sections;
  }

  /** Every write, with what it wrote: messages, usage records, compaction events, stored results. */
  onChange(listener: SessionChangeListener): () => void {
    return this.changes.on(listener);
  }

  onCompaction(listener: CompactionListener, before?: BeforeCompaction): () => void {
    return this.edits.onCompaction(listener, before);
  }

  readonly count = (message: Message): number => countMessage(message, this.options.counter); // what the request counts each message with

  /** A creation time after every message so far. */
  private nextCreatedAt(): number {
    this.lastCreatedAt = Math.max(this.now(), this.lastCreatedAt + 1);
    return this.lastCreatedAt;
  }

  /** Stores messages with their counts; returns them as stored (what the views are told). */
  private async persist(messages: readonly Message[]): Promise<Message[]> {
    const stored = messages.map((m) => withStoredCount(m, this.options.counter));
    await storeImages(messages, this.options.store, this.sessionId); // the bytes once, in the blob store; the messages keep a ref
    await this.options.store.putMessages(this.sessionId, stored);
    return stored;
  }

  private saveSnapshot(compactionId: string, tokenCount: number): Promise<void> {
    const messages = this.working.map((m) => withStoredCount(m, this.options.counter));
    return this.options.store.saveSnapshot({ sessionId: this.sessionId, messages, tokenCount, compactionId, createdAt: this.lastCreatedAt });
  }

  /** The working context as an edit of the history left it (a new tracked list), saved as a snapshot. */
  private async replaceWorking(after: readonly Message[], compactionId: string, tokenCount: number): Promise<void> {
    this.working = trackEdits(settleMessages([...after]));
    this.lastCompactionId = compactionId;
    await this.saveSnapshot(compactionId, tokenCount);
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
        const message = { ...incoming, createdAt: this.nextCreatedAt() };
        await countMessageAsync(message, this.options.counter);
        this.working.push(settledMessage(message));
        noteEdit(this.working, this.working.length - 1);
        recorded.push(message);
      }
      this.changes.emit({ type: 'messages', appended: await this.persist(recorded), replaced: [] });
      return recorded;
    });
  }

  /** Records the user's message (`source`: its command; `mode`: plan mode) after what they attached to it; returns it (not what came before it). */
  async appendUser(text: string, attachments: readonly Message[] = [], source?: string, mode?: 'plan'): Promise<Message> {
    const meta = { ...(source === undefined ? {} : { source }), ...(mode ? { mode } : {}) };
    const recorded = await this.append(...attachments, Object.keys(meta).length ? { ...userMessage(text), meta } : userMessage(text));
    return recorded[recorded.length - 1];
  }

  async appendAssistant(text: string, calls: readonly ToolCall[] = [], reasoning: readonly ReasoningBlock[] = []): Promise<Message> {
    const message = assistantMessage(text, calls);
    if (reasoning.length) {
      message.reasoning = [...reasoning];
      // Each block once, in slices with turns of the event loop between them (a reply's thinking can be megabytes).
      const counts = new Map<string, number>();
      for (const block of reasoning) if (block.text && !counts.has(block.text)) counts.set(block.text, await this.options.counter.countAsync(block.text));
      const count = (t: string) => counts.get(t) ?? this.options.counter.count(t);
      message.meta = { ...message.meta, reasoningTokens: reasoningTokens(message, count), thinkingTokens: reasoning.reduce((n, b) => n + (b.text ? count(b.text) : 0), 0) };
    }
    const recorded = await this.append(message);
    return recorded[recorded.length - 1];
  }

  /** Truncates / offloads a tool's output and records it as the call's result (`isError`: the tool failed; `denied`: refused). */
  async recordToolResult(call: ToolCall, output: string | Uint8Array, result: { isError?: boolean; denied?: Denial } = {}): Promise<Message> {
    const { isError = false, denied = false } = result;
    const onStored = (blob: BlobInfo) => this.resultStored(blob, call.name, call.arguments);
    const message = await recordToolResult({ store: this.options.store, sessionId: this.sessionId, call, output, isError, denied, settings: this.settings, now: this.now, onStored });
    const [recorded] = await this.append(message);
    return recorded;
  }

  /** A result stored whole (a tool's output, an offloaded result, an attachment): the views list it now, named for the next request. */
  resultStored(blob: BlobInfo, toolName: string, args?: string): void {
    this.changes.emit({ type: 'result', blob, title: { toolName, arguments: args, requestIndex: this.nextRequestIndex } });
  }

  /** Tool calls of the latest assistant message that have no output yet. */
  openCallIds(): Set<string> {
    return openCallIds(this.working);
  }

  /** "Aborted" outputs for every open call, in the working context only (the caller persists). */
  private closeOpenCalls(reason: string): Message[] {
    const added = openCalls(this.working).map((call) => settledMessage({ ...abortedToolResult(call, reason), createdAt: this.nextCreatedAt() }));
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

  /** The budget for the working context: once the provider reported usage, that report plus the estimate of what changed since. */
  measure(fixed: FixedComponents = this.promptFixed): ContextBudget {
    const inputs = { working: this.working, fixed, contextWindow: this.contextWindow, maxOutputTokens: this.maxOutputTokens, observed: this.observedReports };
    return this.lastMeasure.get(inputs, () => this.basis.measure({ working: this.working, fixed, count: this.count, settings: this.settings, contextWindow: this.contextWindow, maxOutputTokens: this.maxOutputTokens }));
  }

  /** The budget the meter would show for another working context (a compaction's outcome, a preview with the user's summary), on the same basis. */
  measureOf(working: readonly Message[], fixed: FixedComponents = this.promptFixed): ContextBudget {
    return this.basis.measure({ working, fixed, count: this.count, settings: this.settings, contextWindow: this.contextWindow, maxOutputTokens: this.maxOutputTokens });
  }

  /** The next request as the views list it: with the last prompt built in this session part by part, when there is one. */
  planNextRequest(): RequestPlan {
    return this.planRequest(this.promptFixed, this.promptSections);
  }

  /**
   * What the next request would carry now (visible messages only, every call with its output), with
   * the prompt's dynamic part and every item. Changes nothing. `measured`: this context's budget with these fixed components, when just measured.
   */
  planRequest(fixed: FixedComponents = this.promptFixed, sections?: PromptSections, measured?: ContextBudget): RequestPlan {
    const visible = this.visible.view(this.working);
    const { messages, items } = requestContent({ messages: visible.messages, sections, fixed, count: this.count, reuse: this.conversationItems, lineage: this.requestLineage });
    return { messages, items, budget: measured ?? this.measure(fixed), repaired: visible.repaired };
  }

  /** The next request (see nextRequest.ts). Unless it is blocked, send `plan.messages`, then call recordResponse. */
  nextRequest<P extends PromptPart>(prompt: PromptInput<P>, signal?: AbortSignal, options: Omit<NextRequestOptions, 'signal'> = {}): Promise<PlannedRequest<P>> {
    return planNextRequest(this, this.autoCompaction, prompt, { ...options, signal });
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

  // ---- editing the history: compaction, the user's steps, pinning (historyEdits.ts) ----

  /** Runs (or, with dryRun, previews) a compaction and stores its outcome; one by hand lets automatic compaction run again. */
  compact(options: CompactOptions): Promise<CompactionResult> {
    if (options.trigger === 'manual' && !options.dryRun) this.autoCompaction.reset();
    return this.edits.compact(options);
  }

  /** What a rewind to before a user message would leave and set aside, changing nothing (see rewind.ts). */
  planRewind(messageId: string): Promise<RewindPlan> {
    return this.edits.planRewind(messageId);
  }

  /** Rewinds to before a user message as planRewind says, recorded as a step and a snapshot; `files`: what a restore with it put back. */
  rewind(messageId: string, files?: Pick<HistoryStep, 'checkpointId' | 'files'>): Promise<CompactionEventRecord> {
    return this.edits.rewind(messageId, files);
  }

  /** Records a user's step that left the context as it is (files restored to a checkpoint). */
  recordStep(step: HistoryStep): Promise<CompactionEventRecord> {
    return this.edits.recordStep(step);
  }

  /** Pins or unpins an item so compaction leaves it alone. */
  setPinned(messageId: string, pinned: boolean): Promise<boolean> {
    return this.edits.setPinned(messageId, pinned);
  }
}
