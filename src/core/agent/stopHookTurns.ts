import type { Message } from '../model/message';
import type { AgentListener, TurnStopReason } from './events';
import type { TurnGate } from './turnGate';

/** Times Stop hooks can make one turn go on before Tally ends it anyway (Claude Code's cap is the same). */
export const MAX_STOP_HOOK_CONTINUATIONS = 8;

export const STOP_HOOK_CAP_NOTICE = `Stop hooks asked the agent to go on ${MAX_STOP_HOOK_CONTINUATIONS} times in this turn; Tally ended the turn there. Send a message to continue.`;

export interface ContinuableTurn {
  /** The conversation as it is now (its last answer is what the Stop hooks read). */
  messages(): readonly Message[];
  /** Records `text` as a message on the user's side and runs the loop again. */
  goOn(text: string, source: string): Promise<TurnStopReason>;
}

/**
 * Ends a turn through the Stop hooks: while one asks the agent to go on, its reason becomes the
 * next message and the loop runs again, at most MAX_STOP_HOOK_CONTINUATIONS times per turn.
 */
export async function endTurnThroughStopHooks(gate: TurnGate | undefined, first: TurnStopReason, report: AgentListener, turn: ContinuableTurn): Promise<TurnStopReason> {
  let reason = first;
  if (!gate) return reason;
  for (let continued = 0; ; continued++) {
    const after = await gate.afterTurn({ reason, continued, lastAssistantText: lastAnswer(turn.messages()) }, report);
    if (!after.continueWith) return reason;
    if (continued >= MAX_STOP_HOOK_CONTINUATIONS) {
      report({ type: 'notice', message: STOP_HOOK_CAP_NOTICE });
      return reason;
    }
    reason = await turn.goOn(after.continueWith.text, after.continueWith.source);
  }
}

function lastAnswer(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'assistant') return messages[i]!.content;
  return undefined;
}
