import { TextEncoder } from 'util';
import { ContextBudget } from '../accounting/budget';
import { Calibration } from '../accounting/calibration';
import { countMessage, countMessageAsync } from '../accounting/messageTokens';
import type { TokenCounter } from '../accounting/tokenizer';
import { normalizeHistory, validateHistory } from '../history/normalize';
import { repairCallIdsOnLoad } from '../history/repairCallIds';
import { newId } from '../model/ids';
import type { Message, ToolCall } from '../model/message';
import type {
  CompactionEventRecord,
  CompactionTrigger,
  ComponentTokens,
  RemovedItem,
  RequestItem,
  SessionStore,
  TurnUsageRecord,
} from '../persistence/types';
import type { ContextSettings } from '../settings';
import { recordToolResult } from '../toolOutput/recorder';
import { defaultStrategies, runStrategyChain } from './chain';
import type { CompactionEvent, CompactionListener } from './events';
import { LocalSummarizer } from './localSummarizer';
import { Mutex } from './mutex';
import { requestItemOf } from './requestItems';
import type { CompactionStrategy, StrategyContext, Summarizer } from './types';
import { totalTokens } from './units';

/** Tokens outside the conversation, measured by the prompt builder. */
export type FixedComponents = Pick<ComponentTokens, 'system' | 'skills' | 'tools'>;

export interface ContextManagerOptions {
  store: SessionStore;
  sessionId: string;
  settings: ContextSettings;
  counter: TokenCounter;
  summarizer?: Summarizer;
  strategies?: CompactionStrategy[];
  contextWindow?: number;
  maxOutputTokens?: number;
  /** Text re-injected after a checkpoint, when instructions live in the conversation. */
  reinjectInstructions?: () => string | undefined;
  now?: () => number;
}

export interface CompactOptions {
  trigger: CompactionTrigger;
  focus?: string;
  /** Preview only: compute what would change, store nothing. */
  dryRun?: boolean;
  /** Tokens outside the conversation at this moment. */
  fixed?: FixedComponents;
  /** Run only these strategies (by name), in the chain's order. */
  only?: string[];
  signal?: AbortSignal;
}

export interface CompactionResult {
  id: string;
  trigger: CompactionTrigger;
  status: CompactionEventRecord['status'];
  dryRun: boolean;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  strategiesRun: string[];
  removed: RemovedItem[];
  summary?: string;
  durationMs: number;
  error?: string;
  /** The working context the compaction produced (or would produce, for a dry run). */
  messages: readonly Message[];
}

export interface RequestPlan {
  messages: Message[];
  items: RequestItem[];
  budget: ContextBudget;
  /** Synthetic outputs the read-path normalization had to add (should be none). */
  repaired: number;
}

export interface PreflightResult {
  action: 'none' | 'compacted' | 'blocked';
  compaction?: CompactionResult;
  budget: ContextBudget;
}

const EMPTY_FIXED: FixedComponents = { system: 0, skills: 0, tools: 0 };

/**
 * Owns one session's working context: records messages and tool results, measures the budget,
 * runs compaction before the window overflows, and keeps the transcript, compaction history,
 * snapshots and per-request usage in the store.
 */
export class ContextManager {
  private working: Message[] = [];
  private lastCreatedAt = 0;
  private requestIndex = 0;
  private readonly mutex = new Mutex();
  private readonly listeners = new Set<CompactionListener>();
  private readonly strategies: CompactionStrategy[];
  private readonly summarizer: Summarizer;
  private readonly now: () => number;
  contextWindow?: number;
  maxOutputTokens?: number;
  lastCompactionId?: string;
  /** reported ÷ estimated for this session's model (F2). */
  readonly calibration = new Calibration();
  /** The last request the provider reported usage for: what it carried, by our estimate. */
  private usageBasis?: { reportedInput: number; fixed: number; items: Map<string, number> };

  private constructor(private readonly options: ContextManagerOptions) {
    this.strategies = options.strategies ?? defaultStrategies();
    this.summarizer = options.summarizer ?? new LocalSummarizer();
    this.now = options.now ?? Date.now;
    this.contextWindow = options.contextWindow;
    this.maxOutputTokens = options.maxOutputTokens;
  }

  /** Opens a session: the latest snapshot plus every transcript message recorded after it (F12). */
  static async open(options: ContextManagerOptions): Promise<ContextManager> {
    const manager = new ContextManager(options);
    // The encoder's ranks load in slices here, so the first count never blocks the host.
    await options.counter.load();
    await manager.load();
    return manager;
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  /** Index the next recorded request will get. */
  get nextRequestIndex(): number {
    return this.requestIndex;
  }

  get settings(): ContextSettings {
    return this.options.settings;
  }

  /** The working context, as the agent sees it (hidden messages included, flagged). */
  get messages(): readonly Message[] {
    return this.working;
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

  private async load(): Promise<void> {
    const { store, sessionId } = this.options;
    const [snapshot, transcript, usage] = await Promise.all([
      store.loadSnapshot(sessionId),
      store.loadTranscript(sessionId),
      store.listTurnUsage(sessionId),
    ]);
    this.requestIndex = usage.reduce((max, r) => Math.max(max, r.requestIndex + 1), 0);
    const pins = new Map(transcript.map((m) => [m.id, Boolean(m.pinned)]));
    let messages: Message[];
    if (snapshot) {
      const newer = transcript.filter((m) => m.createdAt > snapshot.createdAt);
      messages = [...snapshot.messages.map((m) => (pins.has(m.id) ? { ...m, pinned: pins.get(m.id) } : m)), ...newer];
      this.lastCompactionId = snapshot.compactionId;
    } else {
      messages = transcript;
    }
    this.lastCreatedAt = transcript.reduce((max, m) => Math.max(max, m.createdAt), snapshot?.createdAt ?? 0);
    // Read path: a history stored by an older version or cut by a crash is repaired, not trusted.
    this.working = normalizeHistory(repairCallIdsOnLoad(messages, sessionId)).messages;
  }

  private stamp(message: Message): Message {
    const createdAt = Math.max(this.now(), this.lastCreatedAt + 1);
    this.lastCreatedAt = createdAt;
    return { ...message, createdAt };
  }

  private count = (message: Message): number => countMessage(message, this.options.counter);

  /**
   * Records messages (write path, F7): before a new non-tool message, every open call gets an
   * "aborted" output; a tool output whose call is not open is refused.
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
        this.working.push(message);
        recorded.push(message);
      }
      await this.options.store.putMessages(this.sessionId, recorded);
      return recorded;
    });
  }

  /** Tool calls of the latest assistant message that have no output yet. */
  openCallIds(): Set<string> {
    const open = new Set<string>();
    for (let i = this.working.length - 1; i >= 0; i--) {
      const m = this.working[i];
      if (m.role === 'tool' && m.toolCallId) {
        open.delete(m.toolCallId);
        continue;
      }
      if (m.role === 'assistant' && m.toolCalls?.length) {
        const answered = new Set(this.working.slice(i + 1).map((x) => x.toolCallId));
        for (const call of m.toolCalls) if (!answered.has(call.id)) open.add(call.id);
      }
      break;
    }
    return open;
  }

  /** Synthetic "aborted" outputs for every open call, recorded in the working context only (caller persists). */
  private closeOpenCalls(reason: string): Message[] {
    const open = this.openCallIds();
    if (open.size === 0) return [];
    const assistant = [...this.working].reverse().find((m) => m.role === 'assistant' && m.toolCalls?.length);
    const added: Message[] = [];
    for (const call of assistant?.toolCalls ?? []) {
      if (!open.has(call.id)) continue;
      const aborted = this.stamp({
        id: newId('m'),
        role: 'tool',
        kind: 'aborted',
        content: `[aborted: ${reason}]`,
        toolCallId: call.id,
        toolName: call.name,
        agentVisible: true,
        userVisible: true,
        createdAt: 0,
        meta: { synthetic: true, isError: true },
      });
      this.count(aborted);
      this.working.push(aborted);
      added.push(aborted);
    }
    return added;
  }

  /** Gives every open call an "aborted" output now (cancellation, F18). */
  abortOpenCalls(reason = 'cancelled by the user'): Promise<Message[]> {
    return this.mutex.run(async () => {
      const added = this.closeOpenCalls(reason);
      if (added.length) await this.options.store.putMessages(this.sessionId, added);
      return added;
    });
  }

  /** Truncates / offloads a tool's output (F5, F6) and records it as the call's result. */
  async recordToolResult(call: ToolCall, output: string | Uint8Array, isError = false): Promise<Message> {
    const message = await recordToolResult({
      store: this.options.store,
      sessionId: this.sessionId,
      call,
      output,
      isError,
      settings: this.settings,
      now: this.now,
    });
    const [recorded] = await this.append(message);
    return recorded;
  }

  /**
   * The budget for the current working context (F3). When the provider reported usage for an
   * earlier request, the total is that report plus the estimate of what changed since (F2); the
   * conversation components are scaled so they add up to it.
   */
  measure(fixed: FixedComponents = EMPTY_FIXED): ContextBudget {
    const budget = new ContextBudget({
      contextWindow: this.contextWindow ?? this.settings.contextWindow,
      maxOutputTokens: this.maxOutputTokens ?? this.settings.maxOutputTokens,
      settings: this.settings,
    });
    const components = { ...budget.componentsFor(this.working, this.count), ...fixed };
    budget.setComponents(components);
    budget.estimatedTotal = budget.used;
    const basis = this.usageBasis;
    if (basis) {
      const fixedNow = fixed.system + fixed.skills + fixed.tools;
      const current = new Map<string, number>();
      for (const m of this.working) if (m.agentVisible) current.set(m.id, this.count(m));
      let delta = fixedNow - basis.fixed;
      for (const [id, tokens] of current) if (!basis.items.has(id)) delta += tokens;
      for (const [id, tokens] of basis.items) if (!current.has(id)) delta -= tokens;
      const conversation = components.messages + components.toolResults + components.summaries;
      const reportedConversation = Math.max(0, basis.reportedInput + delta - fixedNow);
      if (conversation > 0) {
        const scale = reportedConversation / conversation;
        const messages = Math.round(components.messages * scale);
        const toolResults = Math.round(components.toolResults * scale);
        budget.setComponents({ ...components, messages, toolResults, summaries: Math.max(0, reportedConversation - messages - toolResults) });
        budget.basis = 'reported';
      }
    }
    return budget;
  }

  /** Proactive trigger (F10): compact at the trigger, and always before sending when blocked. */
  preflight(fixed: FixedComponents = EMPTY_FIXED, signal?: AbortSignal): Promise<PreflightResult> {
    const budget = this.measure(fixed);
    if (!budget.shouldCompact()) return Promise.resolve({ action: 'none', budget });
    const trigger: CompactionTrigger = budget.isBlocked() ? 'blocked' : 'auto';
    return this.compact({ trigger, fixed, signal }).then((compaction) => {
      const after = this.measure(fixed);
      return { action: after.isBlocked() ? 'blocked' : 'compacted', compaction, budget: after };
    });
  }

  /** Reactive recovery (F10): the provider said the prompt is too long although the estimate fit. */
  recoverFromOverflow(fixed: FixedComponents = EMPTY_FIXED, signal?: AbortSignal): Promise<CompactionResult> {
    return this.compact({ trigger: 'overflow', fixed, signal });
  }

  /** Manual compaction (command, /compact, compact_context tool) with an optional focus. */
  forceCompact(focus?: string, fixed: FixedComponents = EMPTY_FIXED, trigger: CompactionTrigger = 'manual'): Promise<CompactionResult> {
    return this.compact({ trigger, focus, fixed });
  }

  /** What a manual compaction would do, changing nothing (F22 preview). */
  previewCompaction(focus?: string, fixed: FixedComponents = EMPTY_FIXED): Promise<CompactionResult> {
    return this.compact({ trigger: 'manual', focus, fixed, dryRun: true });
  }

  compact(options: CompactOptions): Promise<CompactionResult> {
    return this.mutex.run(() => this.compactNow(options));
  }

  private targetFor(options: CompactOptions, budget: ContextBudget, conversationTokens: number): number {
    const effective = budget.effectiveWindow;
    const target = Math.floor(effective * this.settings.summary.targetShare);
    if (options.trigger === 'manual' || options.trigger === 'tool' || options.trigger === 'overflow') {
      // The user asked for room, or the provider said the estimate was wrong: aim below the usual
      // target and below half of what is used now.
      const fixed = budget.used - conversationTokens;
      return Math.min(target, fixed + Math.floor(conversationTokens / 2));
    }
    return target;
  }

  private async compactNow(options: CompactOptions): Promise<CompactionResult> {
    const started = this.now();
    const id = newId('c');
    const dryRun = Boolean(options.dryRun);
    const fixed = options.fixed ?? EMPTY_FIXED;
    const budget = this.measure(fixed);
    const fixedTokens = fixed.system + fixed.skills + fixed.tools;
    const before = this.working;
    const conversationBefore = totalTokens(before, this.count);
    const tokensBefore = fixedTokens + conversationBefore;
    const visibleBefore = before.filter((m) => m.agentVisible).length;
    this.emit({ type: 'start', id, trigger: options.trigger, focus: options.focus, tokensBefore, messagesBefore: visibleBefore, dryRun });

    let currentStrategy: string | undefined;
    const ctx: StrategyContext & { onStrategy: (name: string) => void } = {
      settings: this.settings,
      effectiveWindow: budget.effectiveWindow,
      fixedTokens,
      targetTokens: this.targetFor(options, budget, conversationBefore),
      trigger: options.trigger,
      focus: options.focus,
      reinjectInstructions: this.options.reinjectInstructions?.(),
      dryRun,
      countTokens: this.count,
      summarizer: this.summarizer,
      offload: async (content, toolName, toolCallId) => {
        if (dryRun) return newId('r'); // same shape as a real ref, so the preview counts the same
        try {
          const info = await this.options.store.putBlob(this.sessionId, { toolName, toolCallId, content: new TextEncoder().encode(content) });
          return info.id;
        } catch {
          return undefined; // the transcript still holds the original
        }
      },
      newId: () => newId('m'),
      now: this.now,
      progress: (step) => this.emit({ type: 'progress', id, strategy: currentStrategy, step }),
      onStrategy: (name) => {
        currentStrategy = name;
        this.emit({ type: 'progress', id, strategy: name, step: `running ${name}` });
      },
      signal: options.signal,
    };
    const strategies = options.only ? this.strategies.filter((s) => options.only!.includes(s.name)) : this.strategies;

    const record = (fields: Partial<CompactionEventRecord>): CompactionEventRecord => ({
      id,
      sessionId: this.sessionId,
      trigger: options.trigger,
      focus: options.focus,
      status: 'complete',
      strategies: [],
      tokensBefore,
      tokensAfter: tokensBefore,
      messagesBefore: visibleBefore,
      messagesAfter: visibleBefore,
      startedAt: started,
      durationMs: this.now() - started,
      removed: [],
      ...fields,
    });

    try {
      const outcome = await runStrategyChain(before, strategies, ctx);
      // Calls still running (compact_context itself) stay open; everything else must pair up.
      const open = this.openCallIds();
      const after = normalizeHistory(outcome.messages).messages.filter((m) => !(m.kind === 'aborted' && m.meta?.synthetic && open.has(m.toolCallId ?? '')));
      const violations = validateHistory(after.filter((m) => m.agentVisible)).filter((v) => ![...open].some((id) => v.includes(`"${id}"`)));
      if (violations.length) throw new Error(`compaction produced an invalid history: ${violations[0]}`);
      const tokensAfter = fixedTokens + totalTokens(after, this.count);
      const changed = outcome.removed.length > 0;
      const event = record({
        status: changed ? 'complete' : 'skipped',
        strategies: outcome.strategiesRun,
        tokensAfter,
        messagesAfter: after.filter((m) => m.agentVisible).length,
        durationMs: this.now() - started,
        summary: outcome.summary,
        removed: outcome.removed,
      });
      if (!dryRun) {
        if (changed) {
          this.working = after;
          this.lastCompactionId = id;
          await this.options.store.saveSnapshot({
            sessionId: this.sessionId,
            messages: after,
            tokenCount: tokensAfter,
            compactionId: id,
            createdAt: this.lastCreatedAt,
          });
        }
        // An automatic check that found nothing to remove is not a compaction; a user's request is recorded either way.
        if (changed || options.trigger !== 'auto') await this.options.store.addCompactionEvent(event);
      }
      this.emit({ type: 'complete', id, record: event, dryRun });
      return { ...this.resultOf(event, dryRun), messages: after };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const event = record({ status: 'error', error: message, durationMs: this.now() - started });
      if (!dryRun) await this.options.store.addCompactionEvent(event).catch(() => undefined);
      this.emit({ type: 'error', id, error: message, record: event });
      return { ...this.resultOf(event, dryRun), messages: before };
    }
  }

  private resultOf(event: CompactionEventRecord, dryRun: boolean): Omit<CompactionResult, 'messages'> {
    return {
      id: event.id,
      trigger: event.trigger,
      status: event.status,
      dryRun,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
      messagesBefore: event.messagesBefore,
      messagesAfter: event.messagesAfter,
      strategiesRun: event.strategies,
      removed: event.removed,
      summary: event.summary,
      durationMs: event.durationMs,
      error: event.error,
    };
  }

  /**
   * The messages of the next request (read path, F7/F8): visible only, normalized so every call
   * has its output even if something went wrong upstream.
   */
  planRequest(fixed: FixedComponents = EMPTY_FIXED): RequestPlan {
    const normalized = normalizeHistory(this.working);
    const messages = normalized.messages.filter((m) => m.agentVisible);
    const items = messages.map((m) => requestItemOf(m, this.count(m)));
    return { messages, items, budget: this.measure(fixed), repaired: normalized.inserted.length + normalized.removed.length };
  }

  /** Records a request that was sent, with the provider's usage when it reported one (F2, F4). */
  async recordRequest(args: {
    plan: RequestPlan;
    model: string;
    reported?: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number };
    compactionId?: string;
  }): Promise<TurnUsageRecord> {
    const { plan, reported } = args;
    const record: TurnUsageRecord = {
      id: newId('u'),
      sessionId: this.sessionId,
      requestIndex: this.requestIndex++,
      createdAt: this.now(),
      model: args.model,
      contextWindow: plan.budget.contextWindow,
      maxOutputTokens: plan.budget.maxOutputTokens,
      components: { ...plan.budget.components },
      estimatedInputTokens: plan.budget.estimatedTotal,
      reportedInputTokens: reported?.inputTokens,
      reportedOutputTokens: reported?.outputTokens,
      cacheReadTokens: reported?.cacheReadTokens,
      cacheWriteTokens: reported?.cacheWriteTokens,
      compactionId: args.compactionId,
      items: plan.items,
    };
    await this.options.store.addTurnUsage(record);
    if (reported?.inputTokens) {
      // Compare like with like: the estimate of exactly what was sent.
      const estimated = plan.budget.estimatedTotal;
      this.calibration.observe(estimated, reported.inputTokens);
      // A report far from the estimate is more likely a proxy's or a server's bug than a tokenizer
      // difference; trusting it could stop compaction, so the estimate stays the basis then.
      const ratio = reported.inputTokens / Math.max(1, estimated);
      if (ratio < 0.5 || ratio > 2) {
        this.usageBasis = undefined;
        return record;
      }
      const items = new Map<string, number>();
      for (const item of plan.items) items.set(item.messageId, item.tokens);
      this.usageBasis = { reportedInput: reported.inputTokens, fixed: plan.budget.components.system + plan.budget.components.skills + plan.budget.components.tools, items };
    }
    return record;
  }

  /** Pins or unpins an item so compaction leaves it alone (F22). */
  setPinned(messageId: string, pinned: boolean): Promise<boolean> {
    return this.mutex.run(async () => {
      const index = this.working.findIndex((m) => m.id === messageId);
      if (index < 0) return false;
      const updated = { ...this.working[index], pinned };
      this.working[index] = updated;
      // Synthetic items (summaries, pointers) live only in the working context and its snapshot.
      if (!updated.meta?.replaces && !updated.meta?.synthetic) await this.options.store.putMessages(this.sessionId, [updated]);
      if (this.lastCompactionId) {
        await this.options.store.saveSnapshot({
          sessionId: this.sessionId,
          messages: this.working,
          tokenCount: totalTokens(this.working, this.count),
          compactionId: this.lastCompactionId,
          createdAt: this.lastCreatedAt,
        });
      }
      return true;
    });
  }
}
