/**
 * The token figures the chat shows, computed from the host's own records (the usage the inspector
 * shows too), so a number is the same wherever it appears. No `vscode` import.
 */
import type { ContextBudget } from '../../core/accounting/budget';
import { formatTokens, requestFigures, tokensWithEstimate, windowFigures, type WindowFigures } from '../../core/accounting/windowFigures';
import type { RequestUsageRecord } from '../../core/model/records';
import { modelPrices, type ModelPrices } from '../../core/providers/models/modelRegistry';
import type { ChatTurnUsage } from '../../protocol/chat';
import { COUNTING, type MeterCounting } from '../../protocol/meterCounting';

/** What a request carried: the provider's count when it reported one, Tally's estimate otherwise. */
export function requestInputTokens(record: RequestUsageRecord): number {
  return record.reportedInputTokens ?? record.estimatedInputTokens;
}

/**
 * The window figures every surface shows (status bar, chat meter, inspector, command messages),
 * from the working context now and the last request sent.
 */
export function sessionWindowFigures(session: { contextSession: { measure(): ContextBudget } }, last?: RequestUsageRecord): WindowFigures {
  return budgetWindowFigures(session.contextSession.measure(), last);
}

/** The shared figures from a budget already measured (a planned request carries one). */
export function budgetWindowFigures(budget: ContextBudget, last?: RequestUsageRecord): WindowFigures {
  return windowFigures(budget, last && requestFigures(last.requestIndex, last.estimatedInputTokens, last.reportedInputTokens));
}

/** The chat's meter: the shared figures; with no model there is no window to warn about (the banner asks for a model). */
export function chatMeter(context: { measure(): ContextBudget }, hasModel: boolean, last?: RequestUsageRecord): WindowFigures {
  const figures = budgetWindowFigures(context.measure(), last);
  return hasModel ? figures : { ...figures, warning: undefined };
}

/**
 * The chat's meter while the session's context is read: only the last request's stored figure,
 * made as the counted meter makes it (it does not change once the context is counted).
 */
export function countingMeter(usage: readonly RequestUsageRecord[] = []): MeterCounting {
  const record = usage[usage.length - 1];
  if (!record) return { text: { lastAndNow: `context now ${COUNTING}` } };
  const last = requestFigures(record.requestIndex, record.estimatedInputTokens, record.reportedInputTokens);
  return { lastRequest: last, text: { lastAndNow: `last request ${formatTokens(last.tokens)} · context now ${COUNTING}`, lastRequest: tokensWithEstimate(last.tokens, last.estimated) } };
}

/** Dollars for one request. Input counts include cached tokens, which are billed at the cache prices. */
export function requestCost(record: RequestUsageRecord, prices: ModelPrices): number {
  const input = requestInputTokens(record);
  const cacheRead = record.cacheReadTokens ?? 0;
  const cacheWrite = record.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, input - cacheRead - cacheWrite);
  // Reasoning is billed as output and is part of it; a report with reasoning but no output total still costs it.
  const output = Math.max(record.reportedOutputTokens ?? 0, record.reasoningTokens ?? 0);
  return (fresh * prices.input + cacheRead * (prices.cacheRead ?? prices.input) + cacheWrite * (prices.cacheWrite ?? prices.input) + output * prices.output) / 1_000_000;
}

/** A figure summed over requests, or undefined when no request reported it. */
function reportedSum(records: readonly RequestUsageRecord[], key: 'cacheWriteTokens' | 'reasoningTokens'): number | undefined {
  return records.some((r) => r[key] !== undefined) ? records.reduce((sum, r) => sum + (r[key] ?? 0), 0) : undefined;
}

/**
 * Sums a turn's requests with its subagents' (`subagentRecords`), whose share is said apart; the
 * last request is the session's own. Cost only when every request's model has a price.
 */
export function turnUsage(records: readonly RequestUsageRecord[], priceOverrides: Record<string, ModelPrices> = {}, subagentRecords: readonly RequestUsageRecord[] = []): ChatTurnUsage | undefined {
  const own = ownTurnUsage(records, priceOverrides);
  if (!own || subagentRecords.length === 0) return own;
  const all = ownTurnUsage([...records, ...subagentRecords], priceOverrides)!;
  const share = ownTurnUsage(subagentRecords, priceOverrides)!;
  return {
    ...all,
    lastRequestTokens: own.lastRequestTokens,
    subagents: { requests: share.requests, inputTokens: share.inputTokens, outputTokens: share.outputTokens, ...(share.cost !== undefined ? { cost: share.cost } : {}) },
  };
}

function ownTurnUsage(records: readonly RequestUsageRecord[], priceOverrides: Record<string, ModelPrices>): ChatTurnUsage | undefined {
  if (records.length === 0) return undefined;
  const last = records[records.length - 1];
  const reportedCache = records.some((r) => r.cacheReadTokens !== undefined);
  let cost: number | undefined = 0;
  for (const r of records) {
    const prices = modelPrices(r.model, priceOverrides);
    cost = prices && cost !== undefined ? cost + requestCost(r, prices) : undefined;
  }
  return {
    requests: records.length,
    lastRequestTokens: requestInputTokens(last),
    inputTokens: records.reduce((sum, r) => sum + requestInputTokens(r), 0),
    outputTokens: records.reduce((sum, r) => sum + (r.reportedOutputTokens ?? 0), 0),
    cachedTokens: reportedCache ? records.reduce((sum, r) => sum + (r.cacheReadTokens ?? 0), 0) : undefined,
    cacheWriteTokens: reportedSum(records, 'cacheWriteTokens'),
    reasoningTokens: reportedSum(records, 'reasoningTokens'),
    cost,
  };
}
