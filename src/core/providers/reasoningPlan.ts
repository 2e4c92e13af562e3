import { thinkingBudget, thinkingForm, thinkingReserve } from './anthropic/anthropicThinking';
import { isReasoningModel } from './openai/openaiResponsesRequest';
import type { ReasoningRequest } from './types';

/** What a reasoning effort asks of one provider and model: the request's reasoning field and the output reserve it needs. */
export interface ReasoningPlan {
  reasoning?: ReasoningRequest;
  /** Output tokens to reserve on top of the answer's reserve (thinking comes out of max_tokens). */
  extraOutputTokens: number;
}

/** The one place that turns the user's effort into a request's reasoning, for the extension and `tally exec` alike. */
export function planReasoning(provider: string, model: string, effort: ReasoningRequest['effort'] | 'off' | undefined): ReasoningPlan {
  if (!effort || effort === 'off') return { extraOutputTokens: 0 };
  if (provider === 'anthropic') {
    if (thinkingForm(model) === 'none') return { extraOutputTokens: 0 };
    const budgetTokens = thinkingBudget(model, effort);
    return { reasoning: budgetTokens ? { effort, budgetTokens } : { effort }, extraOutputTokens: thinkingReserve(model, effort) };
  }
  if (provider === 'openai' && isReasoningModel(model)) return { reasoning: { effort }, extraOutputTokens: 0 };
  return { extraOutputTokens: 0 };
}
