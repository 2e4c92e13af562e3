import type { Message } from '../../model/message';
import type { RemovedItem } from '../../model/records';
import { removedItem, transcriptIdsOf } from '../removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../types';
import { totalTokens } from '../units';
import { workingSetFrom } from '../workingSet';
import { focusMatcher } from './focus';
import { storeReplacedResults } from './storeReplaced';

/** Completed turns kept as they are, before older ones become episodes. */
const KEEP_COMPLETED_TURNS = 1;

interface Turn {
  userIndex: number; // the user message that opened the turn
  end: number; // exclusive
}

/**
 * Episodic summaries: a completed turn (a user request and all the work that answered it) becomes one episodic
 * summary after the user's words, which stay verbatim. The current turn, and a turn holding part of
 * the working set, are never touched.
 */
export class GoalBatchCompaction implements CompactionStrategy {
  readonly name = 'goal-batch';

  private turns(messages: readonly Message[], ctx: StrategyContext): Turn[] {
    const starts: number[] = [];
    messages.forEach((m, i) => {
      if (m.role === 'user' && m.kind === 'user') starts.push(i);
    });
    const turns: Turn[] = starts.map((start, k) => ({ userIndex: start, end: k + 1 < starts.length ? starts[k + 1] : messages.length }));
    const completed = turns.slice(0, Math.max(0, turns.length - 1 - KEEP_COMPLETED_TURNS));
    const focus = focusMatcher(ctx.focus, messages);
    // A turn holding part of the working set (the latest tool results) stays whole.
    const workingFrom = workingSetFrom(messages, ctx);
    return completed.filter((turn) => {
      if (turn.end > workingFrom) return false;
      const work = messages.slice(turn.userIndex + 1, turn.end);
      // A turn holding a pinned item or one the focus names stays whole (its pairs included).
      if (work.length < 2 || work.some((m) => m.kind === 'episode' || m.pinned || focus.matches(m))) return false;
      return totalTokens(work, ctx.countTokens) >= ctx.settings.masking.minBatchTokens / 2;
    });
  }

  shouldRun(messages: readonly Message[], ctx: StrategyContext): boolean {
    return this.turns(messages, ctx).length > 0;
  }

  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const turns = this.turns(messages, ctx);
    const byStart = new Map(turns.map((t) => [t.userIndex + 1, t]));
    const out: Message[] = [];
    const removed: RemovedItem[] = [];
    for (let i = 0; i < messages.length; ) {
      const turn = byStart.get(i);
      if (!turn) {
        out.push(messages[i++]);
        continue;
      }
      const work = await storeReplacedResults(messages.slice(i, turn.end), ctx);
      ctx.progress(`condensing a completed turn of ${work.length} messages`);
      const tokens = totalTokens(work, ctx.countTokens);
      const text = await ctx.summarizer.summarize({
        messages: [messages[turn.userIndex], ...work],
        style: 'episode',
        focus: ctx.focus,
        maxTokens: Math.max(150, Math.min(800, Math.floor(tokens / 5))),
        signal: ctx.signal,
      });
      out.push({
        id: ctx.newId(),
        role: 'assistant',
        kind: 'episode',
        content: `[Episode: ${work.length} messages (${tokens.toLocaleString('en-US')} tokens) condensed; full transcript kept]\n${text}`,
        agentVisible: true,
        userVisible: true,
        createdAt: work[0].createdAt,
        meta: { synthetic: true, replaces: work.flatMap(transcriptIdsOf) },
      });
      for (const m of work) removed.push(removedItem(m, 'episodic', this.name, ctx.countTokens(m)));
      i = turn.end;
    }
    return { messages: out, removed };
  }
}
