import type { ReasoningBlock, ToolCall } from '../model/message';
import type { ReportedUsage, StopReason } from '../providers/types';

/** One response as the loop read it from the provider's stream. */
export interface StreamedResponse {
  text: string;
  calls: ToolCall[];
  reasoning: ReasoningBlock[];
  usage?: ReportedUsage;
  stopReason: StopReason;
}

/** What is kept of a reply stopped at one of the reply limits. */
const KEPT_OVER_LIMIT_CHARS = 8_000;

/** The text kept of a reply that failed: a reply stopped at a limit keeps only its start (the rest would fill the next request). */
export function keptText(partial: string, overLimit: boolean): string {
  if (!overLimit || partial.length <= KEPT_OVER_LIMIT_CHARS) return partial;
  return `${partial.slice(0, KEPT_OVER_LIMIT_CHARS)}\n[… ${(partial.length - KEPT_OVER_LIMIT_CHARS).toLocaleString('en-US')} more characters not kept]`;
}
