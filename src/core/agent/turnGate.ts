import type { CompactionTrigger } from '../model/records';
import type { AgentListener, TurnStopReason } from './events';

/** What may stand around a turn (the user's hooks): each reports on the turn through `report`. */
export interface TurnGate {
  /** Before the user's message is recorded; `blocked` stops the turn with that reason and records nothing. */
  beforeTurn(text: string, report: AgentListener, signal: AbortSignal): Promise<{ blocked?: string }>;
  /** After the turn stopped, before it is reported ended. */
  afterTurn(reason: TurnStopReason, report: AgentListener): Promise<void>;
  /** A compaction is starting (it is not waited for). */
  compactionStarting?(trigger: CompactionTrigger, report: AgentListener): void;
}
