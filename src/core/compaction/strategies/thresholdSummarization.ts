import type { Message } from '../../model/message';
import type { RemovedItem } from '../../model/records';
import { instructionsMessage } from '../../model/factories';
import { removedItem, transcriptIdsOf } from '../removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../types';
import { toUnits, totalTokens, unitTokens } from '../units';
import { workingSetFrom } from '../workingSet';
import { focusMatcher, unitIsKept } from './focus';
import { storeReplacedResults } from './storeReplaced';

const RECENT_SHARE_OF_ROOM = 0.5;

function isUserWords(m: Message): boolean {
  return m.role === 'user' && m.kind === 'user';
}

/** A message that a checkpoint never replaces: pinned items and system instructions. */
function isKeptVerbatim(m: Message): boolean {
  return Boolean(m.pinned) || m.role === 'system' || m.kind === 'instructions';
}

/**
 * Threshold checkpoint: replace older messages with a structured checkpoint. The working set (the
 * latest tool results with their calls, and what follows them) stays whole; more recent messages
 * are kept by token budget (at most half the window), the user's own messages verbatim up to a
 * budget, pinned items and instructions in place; the result aims well under the trigger.
 */
export class ThresholdSummarization implements CompactionStrategy {
  readonly name = 'threshold-summarization';

  summaryBudget(ctx: StrategyContext): number {
    return Math.max(200, Math.min(4_000, Math.floor(ctx.effectiveWindow * 0.08)));
  }

  private cutIndex(messages: readonly Message[], ctx: StrategyContext): number {
    const userTokens = Math.min(this.userBudget(ctx), totalTokens(messages.filter(isUserWords), ctx.countTokens));
    const share = Math.min(ctx.settings.summary.keepRecentShare, 0.5);
    const room = ctx.targetTokens - ctx.fixedTokens - this.summaryBudget(ctx) - userTokens;
    // Recent messages get at most half the room left under the target once the summary and the
    // user's words are in: in a small window that room is small, so fewer tokens are re-sent.
    const recentBudget = Math.max(0, Math.min(share * ctx.effectiveWindow, RECENT_SHARE_OF_ROOM * room));
    const units = toUnits(messages);
    let kept = 0;
    let cut = messages.length;
    for (let u = units.length - 1; u >= 0; u--) {
      const tokens = unitTokens(messages, units[u], ctx.countTokens);
      // The last unit always stays: the model must see what it is answering.
      if (u < units.length - 1 && kept + tokens > recentBudget) break;
      kept += tokens;
      cut = units[u].start;
    }
    // What the agent is working from stays, even where the room under the target is smaller: the
    // compaction's outcome grows by what the working set needs.
    return Math.min(cut, workingSetFrom(messages, ctx, units));
  }

  /** The user's words stay verbatim up to this budget (newest first beyond it). */
  private userBudget(ctx: StrategyContext): number {
    return Math.min(ctx.settings.summary.keepUserTokens, Math.floor(ctx.effectiveWindow * 0.4));
  }

  shouldRun(messages: readonly Message[], ctx: StrategyContext): boolean {
    const cut = this.cutIndex(messages, ctx);
    const older = messages.slice(0, cut).filter((m) => m.agentVisible && !isKeptVerbatim(m));
    // Worth it only if it removes more than one earlier checkpoint's worth.
    return older.length > 0 && !(older.length === 1 && older[0].kind === 'summary');
  }

  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const cut = this.cutIndex(messages, ctx);
    const older = messages.slice(0, cut);
    const recent = messages.slice(cut);

    // Whole units that must stay verbatim (pinned groups keep their pairs).
    const keep = new Set<number>();
    const focus = focusMatcher(ctx.focus, messages);
    for (const unit of toUnits(older)) {
      const pinned = unitIsKept(older, unit, focus);
      for (let i = unit.start; i < unit.end; i++) if (pinned || isKeptVerbatim(older[i]) || !older[i].agentVisible) keep.add(i);
    }
    // The user's own messages, newest first, up to the budget.
    let userTokens = 0;
    const userBudget = this.userBudget(ctx);
    for (let i = older.length - 1; i >= 0; i--) {
      const m = older[i];
      if (!isUserWords(m) || keep.has(i)) continue;
      const tokens = ctx.countTokens(m);
      if (userTokens + tokens > userBudget) continue;
      userTokens += tokens;
      keep.add(i);
    }

    const replaced = older.filter((_, i) => !keep.has(i));
    if (replaced.length === 0) return { messages: [...messages], removed: [] };
    ctx.progress(`summarizing ${replaced.length} earlier messages`);
    const replacedTokens = totalTokens(replaced, ctx.countTokens);
    const stored = await storeReplacedResults(older, ctx, (_, i) => !keep.has(i));
    // Only what is replaced is summarized: the kept user's words need no second copy.
    const summaryText = await ctx.summarizer.summarize({
      messages: stored.filter((_, i) => !keep.has(i)),
      style: 'checkpoint',
      focus: ctx.focus,
      maxTokens: this.summaryBudget(ctx),
      signal: ctx.signal,
    });
    const header =
      `[Context checkpoint: ${replaced.length} earlier message${replaced.length === 1 ? '' : 's'} ` +
      `(${replacedTokens.toLocaleString('en-US')} tokens) were summarized to free space. ` +
      'The full transcript is kept; archived tool outputs stay readable with read_result.]';
    const summary: Message = {
      id: ctx.newId(),
      role: 'user',
      kind: 'summary',
      content: `${header}\n${summaryText}`,
      agentVisible: true,
      userVisible: true,
      createdAt: replaced[replaced.length - 1].createdAt,
      meta: { synthetic: true, replaces: replaced.flatMap(transcriptIdsOf) },
    };
    const out: Message[] = older.filter((_, i) => keep.has(i));
    out.push(summary);
    if (ctx.reinjectInstructions) {
      out.push(instructionsMessage(ctx.reinjectInstructions, { id: ctx.newId(), createdAt: summary.createdAt }));
    }
    out.push(...recent);
    const removed: RemovedItem[] = stored.filter((_, i) => !keep.has(i)).map((m) => removedItem(m, 'summarized', this.name, ctx.countTokens(m)));
    return { messages: out, removed, summary: summaryText };
  }
}
