import type { CompactionTrigger } from '../model/records';
import type { AgentListener, TurnStopReason } from './events';

/** A turn that stopped, as the Stop hooks read it. */
export interface StoppedTurn {
  reason: TurnStopReason;
  /** Times a Stop hook already made this turn go on. */
  continued: number;
  /** The text of the model's last answer. */
  lastAssistantText?: string;
}

/** What may stand around a turn (the user's hooks): each reports on the turn through `report`. */
export interface TurnGate {
  /** Before the user's message is recorded; `blocked` stops the turn with that reason and records nothing. */
  beforeTurn(text: string, report: AgentListener, signal: AbortSignal): Promise<{ blocked?: string }>;
  /**
   * After the turn stopped, before it is reported ended. `continueWith`: the turn goes on with this
   * text as a message on the user's side (`source`: the hook it came from).
   */
  afterTurn(turn: StoppedTurn, report: AgentListener): Promise<{ continueWith?: { text: string; source: string } }>;
  /** A compaction is about to run (not a preview): awaited; `instructions` go to the summary request. */
  beforeCompaction?(compaction: { trigger: CompactionTrigger; focus?: string }, report: AgentListener, signal?: AbortSignal): Promise<{ instructions?: string }>;
}
