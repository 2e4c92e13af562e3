import type { Message } from '../../model/message';
import type { RemovedItem } from '../../model/records';
import { removedItem, transcriptIdsOf } from '../removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../types';
import { toUnits, unitTokens, type HistoryUnit } from '../units';
import { focusMatcher, unitIsKept } from './focus';
import { storedOutputsLine, storeReplacedResults } from './storeReplaced';

/**
 * Tool-call digests: replace call groups older than N turns (assistant requests) with a digest: what was run
 * or read and what it showed. Consecutive old groups become one digest.
 */
export class ToolCallSummarization implements CompactionStrategy {
  readonly name = 'tool-call-summarization';

  private runs(messages: readonly Message[], ctx: StrategyContext): HistoryUnit[][] {
    let assistantsSeen = 0;
    let boundary = 0; // groups starting before this index are old enough
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].role === 'assistant' && ++assistantsSeen === ctx.settings.toolSummaryAfterTurns) {
        boundary = i;
        break;
      }
    }
    const runs: HistoryUnit[][] = [];
    const focus = focusMatcher(ctx.focus, messages);
    let current: HistoryUnit[] = [];
    for (const unit of toUnits(messages)) {
      if (unit.start >= boundary) break;
      if (unit.isCallGroup && !unitIsKept(messages, unit, focus)) {
        current.push(unit);
      } else if (current.length) {
        runs.push(current);
        current = [];
      }
    }
    if (current.length) runs.push(current);
    return runs.filter((run) => this.runTokens(messages, run, ctx) >= ctx.settings.masking.minBatchTokens);
  }

  private runTokens(messages: readonly Message[], run: HistoryUnit[], ctx: StrategyContext): number {
    return run.reduce((sum, unit) => sum + unitTokens(messages, unit, ctx.countTokens), 0);
  }

  shouldRun(messages: readonly Message[], ctx: StrategyContext): boolean {
    return this.runs(messages, ctx).length > 0;
  }

  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const runs = this.runs(messages, ctx);
    const replacement = new Map<number, { end: number; message: Message }>();
    const removed: RemovedItem[] = [];
    for (const run of runs) {
      const start = run[0].start;
      const end = run[run.length - 1].end;
      const slice = await storeReplacedResults(messages.slice(start, end), ctx);
      ctx.progress(`summarizing ${slice.length} tool messages`);
      const tokens = this.runTokens(messages, run, ctx);
      const digest = await ctx.summarizer.summarize({
        messages: slice,
        style: 'tool_digest',
        focus: ctx.focus,
        maxTokens: Math.max(120, Math.min(1_000, Math.floor(tokens / 4))),
        signal: ctx.signal,
      });
      const refs = storedOutputsLine(slice);
      const content = refs ? `${digest}\n${refs}` : digest;
      replacement.set(start, {
        end,
        message: {
          id: ctx.newId(),
          role: 'user',
          kind: 'tool_summary',
          content,
          agentVisible: true,
          userVisible: true,
          createdAt: slice[0].createdAt,
          meta: { synthetic: true, replaces: slice.flatMap(transcriptIdsOf) },
        },
      });
      for (const m of slice) removed.push(removedItem(m, 'tool_summarized', this.name, ctx.countTokens(m)));
    }
    const out: Message[] = [];
    for (let i = 0; i < messages.length; ) {
      const r = replacement.get(i);
      if (r) {
        out.push(r.message);
        i = r.end;
      } else {
        out.push(messages[i++]);
      }
    }
    return { messages: out, removed };
  }
}
