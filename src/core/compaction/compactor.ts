import type { ContextBudget } from '../accounting/budget';
import { fixedTotal, type FixedComponents } from '../accounting/usageBasis';
import { normalizeHistory, pairingViolations } from '../history/normalize';
import type { Message } from '../model/message';
import type { CompactionEventRecord, CompactionTrigger } from '../model/records';
import type { ContextSettings } from '../settings';
import { carryTodos, setAsideCarriedTodos } from './carriedTodos';
import { runStrategyChain } from './chain';
import type { CompactionEvent } from './events';
import type { CompactionStrategy, CompactionTools, StrategyContext, Summarizer } from './types';
import { totalTokens } from './units';
import { summarizerNoting } from './summaryNotes';
import { summarizerUsing, summaryFields, type UserSummary } from './userSummary';

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
  /** The summary the user confirmed in the preview: it replaces the history instead of a new one. */
  userSummary?: UserSummary;
  /** Reads the run's record before it is stored (not for a dry run) and may add what it found to it. */
  review?(event: CompactionEventRecord): Partial<CompactionEventRecord> | undefined;
  /** What the user's PreCompact hooks asked the summary to keep in mind. */
  instructions?: string;
}

/** The summarizer with the hooks' instructions on every summary request. */
function instructed(summarizer: Summarizer, instructions: string | undefined): Summarizer {
  return instructions ? { name: summarizer.name, summarize: (request) => summarizer.summarize({ ...request, instructions }) } : summarizer;
}

/** A compaction run as the caller sees it: the record it made, plus the working context it produced. */
export interface CompactionResult extends CompactionEventRecord {
  dryRun: boolean;
  /** The working context the compaction produced (or would produce, for a dry run). */
  messages: readonly Message[];
}

/** Everything one compaction run needs; the run itself reads and writes nothing else. */
export interface CompactionInput extends CompactionTools {
  id: string;
  sessionId: string;
  history: readonly Message[];
  /** Calls still running (compact_context itself): they stay open, everything else must pair up. */
  openCallIds: ReadonlySet<string>;
  budget: ContextBudget;
  options: CompactOptions;
  strategies: readonly CompactionStrategy[];
  /**
   * What the meter would show for a working context with the same fixed part (the provider's last
   * report plus what changed since). Without it, the estimate is the figure.
   */
  measure?(messages: readonly Message[]): number;
  emit(event: CompactionEvent): void;
}

export interface CompactionOutcome {
  /** The event to record (status 'skipped' when nothing was removed). */
  event: CompactionEventRecord;
  /** The new history; the input history when the run failed. */
  messages: readonly Message[];
  /** True when the history changed (the caller stores it and a snapshot). */
  changed: boolean;
}

function targetFor(options: CompactOptions, budget: ContextBudget, settings: ContextSettings, conversationTokens: number): number {
  const target = Math.floor(budget.effectiveWindow * settings.summary.targetShare);
  if (options.trigger === 'manual' || options.trigger === 'tool' || options.trigger === 'overflow') {
    // The user asked for room, or the provider said the estimate was wrong: aim below the usual
    // target and below half of what is used now.
    const fixed = budget.used - conversationTokens;
    return Math.min(target, fixed + Math.floor(conversationTokens / 2));
  }
  return target;
}

/**
 * One compaction: runs the strategy chain over a history and returns the new history with the
 * event describing it. Emits start and progress; storing the result (history, snapshot, event)
 * and then emitting complete or error is the caller's job. Never throws: a failure is an event.
 */
export async function runCompaction(input: CompactionInput): Promise<CompactionOutcome> {
  const { id, sessionId, history, openCallIds, budget, options, strategies: chain, measure, emit, ...tools } = input;
  const { settings, now } = tools;
  const started = now();
  const dryRun = Boolean(options.dryRun);
  const fixedTokens = fixedTotal(options.fixed ?? budget.components);
  const conversationBefore = totalTokens(history, tools.countTokens);
  const estimatedBefore = fixedTokens + conversationBefore;
  // The budget was measured on the meter's basis for this history: its total is the figure everyone saw.
  const tokensBefore = measure ? budget.used : estimatedBefore;
  const onBasis = (estimate: number, messages: readonly Message[]) => (measure ? measure(messages) : estimate);
  const estimates = (before: number, after: number) => (measure ? { estimatedTokensBefore: before, estimatedTokensAfter: after } : {});
  const visibleBefore = history.filter((m) => m.agentVisible).length;
  emit({ type: 'start', id, trigger: options.trigger, focus: options.focus, tokensBefore, messagesBefore: visibleBefore, dryRun });

  let currentStrategy: string | undefined;
  const summaryNotes: string[] = [];
  const summarizer = options.userSummary ? summarizerUsing(options.userSummary, tools.summarizer) : tools.summarizer;
  const ctx: StrategyContext & { onStrategy: (name: string) => void } = {
    ...tools,
    summarizer: summarizerNoting(instructed(summarizer, options.instructions), summaryNotes),
    effectiveWindow: budget.effectiveWindow,
    fixedTokens,
    targetTokens: targetFor(options, budget, settings, conversationBefore),
    trigger: options.trigger,
    focus: options.focus,
    dryRun,
    progress: (step) => emit({ type: 'progress', id, strategy: currentStrategy, step }),
    onStrategy: (name) => {
      currentStrategy = name;
      emit({ type: 'progress', id, strategy: name, step: `running ${name}` });
    },
    signal: options.signal,
  };
  const strategies = options.only ? chain.filter((s) => options.only!.includes(s.name)) : chain;

  const record = (fields: Partial<CompactionEventRecord>): CompactionEventRecord => ({
    id,
    sessionId,
    trigger: options.trigger,
    focus: options.focus,
    status: 'complete',
    strategies: [],
    tokensBefore,
    tokensAfter: tokensBefore,
    ...estimates(estimatedBefore, estimatedBefore),
    messagesBefore: visibleBefore,
    messagesAfter: visibleBefore,
    startedAt: started,
    durationMs: now() - started,
    removed: [],
    ...fields,
  });

  try {
    // The todo list is never summarized away: the lists carried before stay out of the strategies'
    // reach, and the current list is put back verbatim into what they produce.
    const { rest, carried } = setAsideCarriedTodos(history);
    ctx.fixedTokens += totalTokens(carried, tools.countTokens);
    const outcome = await runStrategyChain(rest, strategies, ctx);
    const open = openCallIds;
    const after = carryTodos(history, normalizeHistory(outcome.messages).messages, tools).filter((m) => !(m.kind === 'aborted' && m.meta?.synthetic && open.has(m.toolCallId ?? '')));
    const violations = pairingViolations(after).filter((v) => !open.has(v.callId));
    if (violations.length) throw new Error(`compaction produced an invalid history: ${violations[0].text}`);
    if (options.userSummary && outcome.summary === undefined) {
      throw new Error('this compaction wrote no summary, so the one you confirmed was not used; preview the compaction again');
    }
    const changed = outcome.removed.length > 0;
    const estimatedAfter = fixedTokens + totalTokens(after, tools.countTokens);
    const event = record({
      status: changed ? 'complete' : 'skipped',
      strategies: outcome.strategiesRun,
      tokensAfter: onBasis(estimatedAfter, after),
      ...estimates(estimatedBefore, estimatedAfter),
      messagesAfter: after.filter((m) => m.agentVisible).length,
      durationMs: now() - started,
      ...summaryFields(outcome.summary, options.userSummary),
      ...(summaryNotes.length ? { summaryNotes } : {}),
      removed: outcome.removed,
    });
    return { event, messages: after, changed };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { event: record({ status: 'error', error: message, durationMs: now() - started }), messages: history, changed: false };
  }
}

/** The caller's view of a compaction run. */
export function compactionResult(outcome: CompactionOutcome, dryRun: boolean): CompactionResult {
  return { ...outcome.event, dryRun, messages: outcome.messages };
}
