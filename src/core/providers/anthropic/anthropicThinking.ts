/**
 * What Anthropic's Messages API does with thinking, model family by model family, in one place.
 *
 * Sources (read 2026-11):
 * - https://platform.claude.com/docs/en/build-with-claude/extended-thinking — `thinking: {type:
 *   "enabled", budget_tokens}`: budget at least 1,024 and below `max_tokens`; the thinking blocks of
 *   the assistant turn that is in a tool loop must be sent back unchanged (with their `signature`,
 *   `redacted_thinking` with its `data`), before the turn's other blocks; thinking blocks of earlier
 *   turns are stripped by the API and do not count as input tokens, except on Claude Opus 4.5 and
 *   later models, which keep them in context (and count them); thinking is incompatible with
 *   `temperature` (and top_k), and with `tool_choice` "any" or a named tool (only "auto" and "none").
 * - https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html —
 *   `thinking: {type: "adaptive"}` with `output_config: {effort}` on Claude Opus 4.6, Sonnet 4.6,
 *   Opus 4.7 and the Claude 5 models; `type: "enabled"` is deprecated on Opus/Sonnet 4.6 and
 *   rejected (400) on Opus 4.7 and the Claude 5 models; Sonnet 4.5, Opus 4.5, Haiku 4.5 and older
 *   only take `type: "enabled"` with `budget_tokens`.
 * - https://platform.claude.com/docs/en/build-with-claude/preserved-thinking — newer models check a
 *   returned block's signature against the prefix before it: an integration should be append-only,
 *   so Tally sends every thinking block back exactly as it came, in every later request.
 * - Streaming: `content_block_start` of type `thinking` / `redacted_thinking`, `thinking_delta`,
 *   `signature_delta`; `message_delta.usage.output_tokens_details.thinking_tokens` (recordings in
 *   test/unit/core/providers/conformance/recordings/anthropic-messages).
 */
import type { ReasoningRequest } from '../types';

export type ThinkingForm = 'adaptive' | 'budget' | 'none';
export type ReasoningEffort = ReasoningRequest['effort'];

/** The Anthropic minimum for `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024;

/** `budget_tokens` per effort for models that take a fixed budget. */
export const THINKING_BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = { low: 2_048, medium: 8_192, high: 24_576 };

/** Major and minor version of a Claude model id (`claude-opus-4-5-20251101` → 4.5, `claude-3-7-sonnet` → 3.7, `claude-sonnet-5` → 5.0). */
function claudeVersion(model: string): { family: string; version: number } | undefined {
  const id = model.toLowerCase();
  const modern = /claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:[-.](\d))?(?!\d)/.exec(id);
  if (modern) return { family: modern[1], version: Number(modern[2]) + (modern[3] ? Number(modern[3]) / 10 : 0) };
  const legacy = /claude-(\d)[-.](\d)-(opus|sonnet|haiku)/.exec(id);
  if (legacy) return { family: legacy[3], version: Number(legacy[1]) + Number(legacy[2]) / 10 };
  return undefined;
}

/** How a model is asked to think: adaptive (with effort), a fixed budget, or not at all. */
export function thinkingForm(model: string): ThinkingForm {
  const v = claudeVersion(model);
  if (!v) return 'none';
  if (v.family === 'fable' || v.family === 'mythos') return 'adaptive';
  if (v.version >= 4.6 && v.family !== 'haiku') return 'adaptive';
  if (v.version >= 5) return 'adaptive';
  if (v.version >= 4) return 'budget';
  if (v.version === 3.7 && v.family === 'sonnet') return 'budget';
  return 'none';
}

/**
 * True when the API keeps thinking blocks of earlier turns in the model's context (and counts
 * them): Claude Opus 4.5 and every model after it. Other models strip them.
 */
export function keepsEarlierThinking(model: string): boolean {
  const v = claudeVersion(model);
  if (!v) return false;
  if (v.family === 'fable' || v.family === 'mythos') return true;
  if (v.family === 'opus') return v.version >= 4.5;
  return v.version >= 4.6;
}

/** The fixed `budget_tokens` a request sends (0 for adaptive models, and without thinking). */
export function thinkingBudget(model: string, effort: ReasoningEffort | undefined): number {
  if (!effort || thinkingForm(model) !== 'budget') return 0;
  return THINKING_BUDGET_BY_EFFORT[effort];
}

/**
 * Output tokens to reserve for thinking on top of the answer's reserve: thinking is part of
 * `max_tokens`, the fixed budget's or (adaptive) as much as the effort's budget would be.
 */
export function thinkingReserve(model: string, effort: ReasoningEffort | undefined): number {
  if (!effort || thinkingForm(model) === 'none') return 0;
  return THINKING_BUDGET_BY_EFFORT[effort];
}

/**
 * The request fields that turn thinking on, or none when the setting is off or the model cannot
 * think. `max_tokens` must exceed a fixed budget: the caller adds the budget to its output reserve.
 */
export function thinkingFields(model: string, reasoning: ReasoningRequest | undefined, maxTokens: number): Record<string, unknown> {
  if (!reasoning) return {};
  const form = thinkingForm(model);
  if (form === 'adaptive') return { thinking: { type: 'adaptive' }, output_config: { effort: reasoning.effort } };
  if (form === 'budget') {
    const wanted = reasoning.budgetTokens ?? THINKING_BUDGET_BY_EFFORT[reasoning.effort];
    const budget = Math.min(wanted, maxTokens - 1);
    if (budget < MIN_THINKING_BUDGET) return {};
    return { thinking: { type: 'enabled', budget_tokens: budget } };
  }
  return {};
}
