import type { ShownCompaction } from '../../core/model/compactionHead';
import type { ContextBudget } from '../../core/accounting/budget';
import type { CalibrationView } from '../../core/accounting/calibration';
import type { AgentEvent } from '../../core/agent/events';
import type { CompactionEvent } from '../../core/compaction/events';
import type { RequestPlan } from '../../core/context/requestLedger';
import type { SessionChange } from '../../core/context/sessionChanges';
import type { Message } from '../../core/model/message';
import type { RequestUsageRecord } from '../../core/model/records';
import type { BlobInfo } from '../../core/ports/blobStore';
import type { RecentTranscript } from '../../core/ports/sessionStore';
import type { ModelPrices } from '../../core/providers/models/modelRegistry';

/** What the store held of a session when it was opened: the newest page of its transcript and its lists. */
export interface StoredSession {
  page: RecentTranscript;
  compactions: readonly ShownCompaction[];
  /** Figures only: the item lists are read when a request is opened. */
  usage: readonly RequestUsageRecord[];
  blobs: readonly BlobInfo[];
}

/**
 * The working context once the session resumed: what its figures and the next request are made
 * from (a ContextSession is one; tests pass plain objects).
 */
export interface WorkingContext {
  measure(): ContextBudget;
  planNextRequest(): RequestPlan;
  readonly calibration: { view(): CalibrationView };
  /** The working context's messages (a list the session changes in place, telling its lineage). */
  readonly messages: readonly Message[];
  /** The prompt's fixed part the next request is planned with (a new object when it changes). */
  readonly fixed: unknown;
}

/**
 * Everything that changes what the views show of a session, in the order it happened. The same
 * fold takes a stored session being opened (`stored`, then the writes that follow) and the live
 * turn (the agent's events); nothing else changes the state.
 *
 * - `stored`: what the store held when the session was opened (the first input of every state).
 * - `change`: one write to the session (messages, a request's usage, a compaction, a stored result).
 * - `agent`: what the agent loop reports while a turn runs (streamed text and thinking, approvals,
 *   subagents' progress, retries, notices, the turn's start and end).
 * - `compaction`: a compaction running (from the working context: `/compact` runs outside a turn).
 * - `resumed`: the working context was read, so the figures can be counted; `readFailed`: it cannot be.
 * - `earlier`: older messages read for "Show earlier", which go before those held.
 * - `unsent`: the messages the user sent that did not go out yet (no model; the session resuming).
 * - `titles`: names of the results stored before the session opened; `subagentUsage`: the requests
 *   of the session's subagents read from the store; `prices`: the user's price settings changed;
 *   `retitled`: the session got its title; `turnForgotten`: the conversation went back (a rewind),
 *   so what the last turn left (its error, Retry) no longer applies; `contextEdited`: the working
 *   context changed without a write the views fold (a summary pinned, which lives only there);
 *   `planMode`: the user switched plan mode for the next message.
 */
export type SessionInput =
  | { kind: 'stored'; stored: StoredSession }
  | { kind: 'change'; change: SessionChange }
  | { kind: 'agent'; event: AgentEvent }
  | { kind: 'compaction'; event: CompactionEvent }
  | { kind: 'resumed'; context: WorkingContext }
  | { kind: 'readFailed'; reason: string }
  | { kind: 'earlier'; page: RecentTranscript }
  | { kind: 'unsent'; pending?: string; waiting: readonly string[] }
  | { kind: 'titles'; titles: ReadonlyMap<string, string> }
  | { kind: 'subagentUsage'; records: readonly RequestUsageRecord[] }
  | { kind: 'prices'; prices: Record<string, ModelPrices> }
  | { kind: 'retitled'; title: string }
  | { kind: 'turnForgotten' }
  | { kind: 'planMode'; on: boolean }
  | { kind: 'contextEdited' };
