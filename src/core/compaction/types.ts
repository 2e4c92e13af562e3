import type { Message } from '../model/message';
import type { ContextSettings } from '../settings';
import type { CompactionTrigger, RemovedItem } from '../model/records';

/** Produces summary text for messages leaving the window. */
export interface Summarizer {
  readonly name: string;
  summarize(input: SummaryRequest): Promise<string>;
}

export interface SummaryRequest {
  /** The messages being replaced, oldest first (may include earlier summaries). */
  messages: readonly Message[];
  /** What the user asked compaction to keep in mind (`/compact focus`). */
  focus?: string;
  /** What the user's PreCompact hooks asked the summary to keep in mind. */
  instructions?: string;
  /** The summary must fit in about this many tokens. */
  maxTokens: number;
  /** Checkpoint (threshold summarization) or a short digest of tool calls. */
  style: 'checkpoint' | 'tool_digest' | 'episode';
  signal?: AbortSignal;
  /**
   * Told what the summarizer did besides summarizing (a model's summary completed or replaced by
   * the local one, a model that failed): for the user's record, kept out of the summary's text.
   */
  onNote?(note: string): void;
}

/** What a compaction run works with, handed on as it is to every strategy it runs. */
export interface CompactionTools {
  settings: ContextSettings;
  /** Instructions to re-inject after a threshold-summarization checkpoint, when they live in the conversation. */
  reinjectInstructions?: string;
  countTokens(message: Message): number;
  summarizer: Summarizer;
  /** Keeps a copy of text retrievable with read_result; returns the ref id (a placeholder in dry runs, undefined when it could not be kept). */
  offload(content: string, toolName: string, toolCallId?: string): Promise<string | undefined>;
  newId(): string;
  now(): number;
}

/** Everything a strategy may use: the run's tools and what this run aims for. Strategies never touch storage directly. */
export interface StrategyContext extends CompactionTools {
  effectiveWindow: number;
  /** Tokens outside the conversation (system, skills, tools): fixed for this compaction. */
  fixedTokens: number;
  /** Stop when the total falls to this many tokens. */
  targetTokens: number;
  trigger: CompactionTrigger;
  focus?: string;
  dryRun: boolean;
  progress(step: string): void;
  signal?: AbortSignal;
}

export interface StrategyOutcome {
  messages: Message[];
  removed: RemovedItem[];
  summary?: string;
}

export interface CompactionStrategy {
  readonly name: string;
  /** Cheap test: is there anything worth doing for this history? */
  shouldRun(messages: readonly Message[], ctx: StrategyContext): boolean;
  apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome>;
}
