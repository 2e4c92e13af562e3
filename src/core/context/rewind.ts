import type { Message } from '../model/message';
import type { CompactionEventRecord, HistoryStep } from '../model/records';

/** A rewind Tally refuses, with why in words. */
export class RewindRefused extends Error {}

/**
 * Where the working context goes back to for a rewind to before `messageId`: the index of that
 * user message. Refused when the message is not a user message of the working context: a
 * compaction summarized it away (what came before it is no longer kept as it was), or it is unknown.
 */
export function rewindPoint(working: readonly Message[], messageId: string): number {
  const at = working.findIndex((m) => m.id === messageId);
  if (at < 0) throw new RewindRefused('This message is no longer in the context (a compaction summarized it, or an earlier rewind set it aside), so Tally cannot rewind to before it. Rewind to a later message, or start a new session.');
  const message = working[at];
  if (message.role !== 'user' || message.kind !== 'user' || !message.agentVisible) throw new RewindRefused('Only a message you sent can be rewound to.');
  return at;
}

/**
 * An entry of the session's history for a user's step (rewind, restore), recorded like a
 * compaction: the context before and after in the meter's figure (`measure`) and Tally's estimate.
 */
export function historyStepRecord(args: {
  id: string;
  sessionId: string;
  step: HistoryStep;
  startedAt: number;
  before: readonly Message[];
  after: readonly Message[];
  measure: (messages: readonly Message[]) => number;
  estimate: (messages: readonly Message[]) => number;
}): CompactionEventRecord {
  const { before, after, measure, estimate, step } = args;
  const visible = (messages: readonly Message[]) => messages.filter((m) => m.agentVisible).length;
  return {
    id: args.id,
    sessionId: args.sessionId,
    trigger: step.kind,
    status: 'complete',
    strategies: [],
    tokensBefore: measure(before),
    tokensAfter: measure(after),
    estimatedTokensBefore: estimate(before),
    estimatedTokensAfter: estimate(after),
    messagesBefore: visible(before),
    messagesAfter: visible(after),
    startedAt: args.startedAt,
    durationMs: 0,
    removed: [],
    step,
  };
}
