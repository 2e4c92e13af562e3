import type { Message } from '../../model/message';
import type { RemovedItem } from '../../model/records';
import { removedItem, transcriptIdsOf } from '../removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../types';
import { lastUserIndex, toUnits, totalTokens, unitIsPinned, unitTokens } from '../units';

/**
 * F9.5 — the last resort: drop the oldest whole units (a call group never splits) until the
 * window fits, leaving a marker where they were. System instructions, pinned items, the latest
 * user message and the final unit are kept.
 */
export class EmergencyDrop implements CompactionStrategy {
  readonly name = 'emergency-drop';

  shouldRun(messages: readonly Message[], ctx: StrategyContext): boolean {
    return ctx.fixedTokens + totalTokens(messages, ctx.countTokens) > ctx.targetTokens && this.plan(messages, ctx).size > 0;
  }

  private plan(messages: readonly Message[], ctx: StrategyContext): Set<number> {
    const units = toUnits(messages);
    const protectedUser = lastUserIndex(messages);
    let excess = ctx.fixedTokens + totalTokens(messages, ctx.countTokens) - ctx.targetTokens;
    const drop = new Set<number>();
    for (let u = 0; u < units.length - 1 && excess > 0; u++) {
      const unit = units[u];
      const first = messages[unit.start];
      if (unitIsPinned(messages, unit) || first.role === 'system' || first.kind === 'instructions') continue;
      if (unit.start <= protectedUser && protectedUser < unit.end) continue;
      if (first.kind === 'note' && first.meta?.synthetic) continue; // earlier cut markers
      excess -= unitTokens(messages, unit, ctx.countTokens);
      for (let i = unit.start; i < unit.end; i++) drop.add(i);
    }
    return drop;
  }

  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const drop = this.plan(messages, ctx);
    const out: Message[] = [];
    const removed: RemovedItem[] = [];
    let markerPlaced = false;
    const dropped = messages.filter((_, i) => drop.has(i));
    const droppedTokens = totalTokens(dropped, ctx.countTokens);
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (!drop.has(i)) {
        out.push(m);
        continue;
      }
      removed.push(removedItem(m, 'dropped', this.name, ctx.countTokens(m)));
      if (!markerPlaced) {
        markerPlaced = true;
        out.push({
          id: ctx.newId(),
          role: 'user',
          kind: 'note',
          content:
            `[${dropped.length} earlier message${dropped.length === 1 ? ' was' : 's were'} dropped here ` +
            `(${droppedTokens.toLocaleString('en-US')} tokens) because the window was full. They remain in the session transcript.]`,
          agentVisible: true,
          userVisible: true,
          createdAt: m.createdAt,
          meta: { synthetic: true, replaces: dropped.flatMap(transcriptIdsOf) },
        });
      }
    }
    return { messages: out, removed };
  }
}
