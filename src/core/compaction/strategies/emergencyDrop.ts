import type { Message } from '../../model/message';
import type { RemovedItem } from '../../model/records';
import { removedItem, transcriptIdsOf } from '../removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../types';
import { lastUserIndex, toUnits, totalTokens, unitIsPinned, unitTokens, type HistoryUnit } from '../units';
import { workingSetFrom } from '../workingSet';
import { focusMatcher, type FocusMatcher } from './focus';
import { storedOutputsLine, storeReplacedResults } from './storeReplaced';

/** What a unit is worth keeping: ordinary work goes first, then summaries and the user's words, then what the focus names. */
type Tier = 'ordinary' | 'memory' | 'focus' | 'never';

interface DropPlan {
  drop: Set<number>;
  focusDropped: number;
}

/**
 * Emergency drop, the last resort: drop the oldest whole units (a call group never splits) until the
 * window fits, leaving a marker where they were (with the refs of stored outputs it dropped).
 * System instructions, pinned items, the latest user message and the final unit are kept.
 * Summaries, the user's words and the working set (the latest tool results with their calls) go
 * only when ordinary work cannot get the request under the hard limit; items matching a manual compaction's focus come last, and the marker says so.
 */
export class EmergencyDrop implements CompactionStrategy {
  readonly name = 'emergency-drop';

  shouldRun(messages: readonly Message[], ctx: StrategyContext): boolean {
    return ctx.fixedTokens + totalTokens(messages, ctx.countTokens) > ctx.targetTokens && this.plan(messages, ctx).drop.size > 0;
  }

  private tierOf(messages: readonly Message[], unit: HistoryUnit, protectedUser: number, focus: FocusMatcher, workingFrom: number): Tier {
    const first = messages[unit.start];
    if (unitIsPinned(messages, unit) || first.role === 'system' || first.kind === 'instructions') return 'never';
    if (unit.start <= protectedUser && protectedUser < unit.end) return 'never';
    // What the user attached to their latest message goes with it.
    if (first.kind === 'attachment' && attachedToLatest(messages, unit.start, protectedUser)) return 'never';
    if (first.kind === 'note' && first.meta?.synthetic) return 'never'; // earlier cut markers
    for (let i = unit.start; i < unit.end; i++) if (focus.matches(messages[i])) return 'focus';
    if (first.kind === 'summary' || first.kind === 'episode' || first.kind === 'tool_summary' || (first.role === 'user' && (first.kind === 'user' || first.kind === 'attachment'))) return 'memory';
    // What the agent is working from (the latest results and their calls) goes only as the hard limit needs.
    if (unit.start >= workingFrom) return 'memory';
    return 'ordinary';
  }

  private plan(messages: readonly Message[], ctx: StrategyContext): DropPlan {
    const all = toUnits(messages);
    const units = all.slice(0, -1);
    const focus = focusMatcher(ctx.focus, messages);
    const protectedUser = lastUserIndex(messages);
    const workingFrom = workingSetFrom(messages, ctx, all);
    const tiers = units.map((unit) => this.tierOf(messages, unit, protectedUser, focus, workingFrom));
    const total = ctx.fixedTokens + totalTokens(messages, ctx.countTokens);
    const hardLimit = Math.floor(ctx.effectiveWindow * ctx.settings.hardBlock);
    const drop = new Set<number>();
    let excess = total - ctx.targetTokens;
    let focusDropped = 0;
    const pass = (tier: Tier, limit: number) => {
      for (let u = 0; u < units.length && excess + ctx.targetTokens > limit; u++) {
        if (tiers[u] !== tier) continue;
        excess -= unitTokens(messages, units[u], ctx.countTokens);
        for (let i = units[u].start; i < units[u].end; i++) drop.add(i);
        if (tier === 'focus') focusDropped++;
      }
    };
    pass('ordinary', ctx.targetTokens);
    // Summaries, the user's words and items the user asked to keep go only as far as the hard limit needs.
    pass('memory', Math.max(ctx.targetTokens, hardLimit));
    pass('focus', Math.max(ctx.targetTokens, hardLimit));
    return { drop, focusDropped };
  }

  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const { drop, focusDropped } = this.plan(messages, ctx);
    const dropped = await storeReplacedResults(messages.filter((_, i) => drop.has(i)), ctx);
    const droppedTokens = totalTokens(dropped, ctx.countTokens);
    if (focusDropped > 0) ctx.progress(`dropping ${focusDropped} item${focusDropped === 1 ? '' : 's'} matching the focus: nothing else fits the window`);
    const refs = storedOutputsLine(dropped);
    const focusNote = focusDropped > 0 ? ` This includes ${focusDropped} item${focusDropped === 1 ? '' : 's'} matching the requested focus, because nothing else could make the request fit.` : '';
    const out: Message[] = [];
    const removed: RemovedItem[] = dropped.map((m) => removedItem(m, 'dropped', this.name, ctx.countTokens(m)));
    let markerPlaced = false;
    for (let i = 0; i < messages.length; i++) {
      if (!drop.has(i)) {
        out.push(messages[i]);
        continue;
      }
      if (markerPlaced) continue;
      markerPlaced = true;
      out.push({
        id: ctx.newId(),
        role: 'user',
        kind: 'note',
        content:
          `[${dropped.length} earlier message${dropped.length === 1 ? ' was' : 's were'} dropped here ` +
          `(${droppedTokens.toLocaleString('en-US')} tokens) because the window was full. They remain in the session transcript.${focusNote}]` +
          (refs ? `\n${refs}` : ''),
        agentVisible: true,
        userVisible: true,
        createdAt: messages[i].createdAt,
        meta: { synthetic: true, replaces: dropped.flatMap(transcriptIdsOf) },
      });
    }
    return { messages: out, removed };
  }
}

/** True when only attachments lie between `at` and the latest user message: they were sent with it. */
function attachedToLatest(messages: readonly Message[], at: number, latestUser: number): boolean {
  if (at >= latestUser) return false;
  for (let i = at; i < latestUser; i++) if (messages[i].kind !== 'attachment') return false;
  return true;
}
