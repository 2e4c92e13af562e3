import type { ContextBudget } from '../accounting/budget';
import type { FixedComponents } from '../accounting/usageBasis';
import type { Message } from '../model/message';

/** What a budget was measured from. */
export interface MeasureInputs {
  working: readonly Message[];
  fixed: FixedComponents;
  contextWindow?: number;
  maxOutputTokens?: number;
  /** How many provider reports the basis has taken in: a new one changes the budget. */
  observed: number;
}

/**
 * The last budget measured, handed out again while nothing it came from changed: the status bar,
 * the chat and the inspector ask after every agent event, and between two appends the answer is the
 * same. The working context only grows at its end or is replaced as a whole (compaction); a message
 * replaced in place (a pin) keeps its tokens, so its length and last message tell a change apart.
 */
export class LastMeasure {
  private last?: { inputs: MeasureInputs; length: number; tail: Message | undefined; budget: ContextBudget };

  get(inputs: MeasureInputs, measure: () => ContextBudget): ContextBudget {
    const last = this.last;
    const { working, fixed } = inputs;
    if (
      last &&
      last.inputs.working === working &&
      last.length === working.length &&
      last.tail === working[working.length - 1] &&
      last.inputs.fixed.system === fixed.system &&
      last.inputs.fixed.skills === fixed.skills &&
      last.inputs.fixed.tools === fixed.tools &&
      last.inputs.fixed.hooks === fixed.hooks &&
      last.inputs.contextWindow === inputs.contextWindow &&
      last.inputs.maxOutputTokens === inputs.maxOutputTokens &&
      last.inputs.observed === inputs.observed
    ) {
      return last.budget;
    }
    const budget = measure();
    this.last = { inputs: { ...inputs, fixed: { ...fixed } }, length: working.length, tail: working[working.length - 1], budget };
    return budget;
  }
}
