/** What a ContextSession is opened with, and the shapes of the requests it plans. */
import type { TokenCounter } from '../accounting/tokenizer';
import type { FixedComponents } from '../accounting/usageBasis';
import type { CompactionResult } from '../compaction/compactor';
import type { CompactionHold } from './autoCompaction';
import type { CompactionStrategy, Summarizer } from '../compaction/types';
import type { SessionStore } from '../ports/sessionStore';
import type { PromptSections } from '../prompt/promptSections';
import type { ContextSettings } from '../settings';
import type { LastRequest } from './lastRequestUsage';
import type { RequestPlan } from './requestLedger';

export interface ContextSessionOptions {
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
  /** The prompt's tokens outside the conversation until the first request builds it (the last request's, on resume). */
  fixed?: FixedComponents;
  /**
   * The caller starts the encoder's ranks loading (loadEncoder) once the session's first state is
   * shown: an open whose messages all carry their counts does not read them meanwhile.
   */
  encoderAfterFirstState?: boolean;
  /** Where the session's requests left off, when the caller reads it anyway: the resume does not read it again. */
  lastRequest?: Promise<LastRequest>;
  /**
   * Called when the session has no readable snapshot and must read its whole transcript: the read
   * waits for the promise it returns (the window shows the session's newest page first).
   */
  beforeWholeTranscript?: () => Promise<void>;
}

/**
 * What the prompt side contributes to a request: the tokens it adds outside the conversation and,
 * when it can say, the sections they come from (then each is an item of the request, and the
 * dynamic part is placed in the conversation).
 */
export interface PromptPart {
  fixed: FixedComponents;
  sections?: PromptSections;
}

/** A prompt, or how to build one for the room left (it is built again after a compaction). */
export type PromptInput<P extends PromptPart> = P | ((room: { effectiveWindow: number; percentUsed: number }) => P | Promise<P>);

/**
 * The next request: the prompt, the planned messages and what the ledger needs. `blocked`: the
 * context is still over the hard limit after compaction, and the request must not be sent.
 */
export interface PlannedRequest<P extends PromptPart = PromptPart> {
  status: 'ready' | 'blocked';
  prompt: P;
  plan: RequestPlan;
  requestIndex: number;
  /** The compaction that ran before this request (whatever its status). */
  compaction?: CompactionResult;
  /** The compaction that changed the context for this request, for the ledger. */
  compactionId?: string;
  /** True once the request was planned again after the provider said it was too long. */
  recovered: boolean;
  /** Why a blocked request was held for the user to decide (compact now, or send anyway) instead of compacted. */
  hold?: CompactionHold;
  /** The user chose to send it over the hard block. */
  overBlock?: boolean;
}
