import { MESSAGE_OVERHEAD_TOKENS } from '../../accounting/messageTokens';
import { formatTokens } from '../../accounting/windowFigures';
import type { Message } from '../../model/message';
import type { RequestUsageRecord } from '../../model/records';

/**
 * What a subagent read: the input of every request it sent (the provider's count where it reported
 * one, Tally's estimate otherwise), summed over its requests. A request re-reads what the one before
 * it carried, so this is what passed through the subagent's window, not the size of that window.
 */
export function requestRead(record: Pick<RequestUsageRecord, 'reportedInputTokens' | 'estimatedInputTokens'>): number {
  return record.reportedInputTokens ?? record.estimatedInputTokens;
}

/** One subagent's work as the spared figure counts it. */
export interface SubagentSpend {
  requests: number;
  /** Input tokens over its requests (see requestRead). */
  read: number;
  /** Output tokens the provider reported over its requests. */
  output: number;
  /** Tokens of its report as the parent's tool result carries them; absent while it has not come back. */
  cameBack?: number;
}

/** How much the main window was spared: what the subagents read, and what came back of it. */
export interface SparedFigures {
  subagents: number;
  requests: number;
  read: number;
  output: number;
  cameBack: number;
}

/** Sums the subagents' work: the one computation behind every surface that states the spared figure. */
export function sparedFigures(list: readonly SubagentSpend[]): SparedFigures {
  const out: SparedFigures = { subagents: list.length, requests: 0, read: 0, output: 0, cameBack: 0 };
  for (const s of list) {
    out.requests += s.requests;
    out.read += s.read;
    out.output += s.output;
    out.cameBack += s.cameBack ?? 0;
  }
  return out;
}

/** "3 subagents read 41,020 tokens; 2,104 came back". */
export function sparedWords(f: SparedFigures): string {
  const who = f.subagents === 1 ? '1 subagent' : `${formatTokens(f.subagents)} subagents`;
  return `${who} read ${formatTokens(f.read)} ${f.read === 1 ? 'token' : 'tokens'}; ${formatTokens(f.cameBack)} came back`;
}

/** What "read" and "came back" mean, for the tooltip and the docs. */
export const SPARED_DEFINITION =
  "Read: the input tokens of every request the subagents sent (the provider's count where it reported one, Tally's estimate otherwise), summed over their requests: " +
  'what passed through their own windows and never through the main one. Came back: the tokens of their reports as the main session\'s tool results carry them.';

/** A report's tokens as the parent's tool result carries them: the result's item in a request (its count without the message framing). */
export function reportTokens(result: Pick<Message, 'tokens'>): number | undefined {
  return result.tokens === undefined ? undefined : Math.max(0, result.tokens - MESSAGE_OVERHEAD_TOKENS);
}

/** A subagent's figures from its stored requests. */
export function spendOf(usage: readonly Pick<RequestUsageRecord, 'reportedInputTokens' | 'estimatedInputTokens' | 'reportedOutputTokens'>[], cameBack?: number): SubagentSpend {
  return {
    requests: usage.length,
    read: usage.reduce((sum, r) => sum + requestRead(r), 0),
    output: usage.reduce((sum, r) => sum + (r.reportedOutputTokens ?? 0), 0),
    ...(cameBack === undefined ? {} : { cameBack }),
  };
}
