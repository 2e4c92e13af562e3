import type { Message } from '../model/message';
import type { StrategyContext } from './types';
import { toUnits, unitTokens, type HistoryUnit } from './units';

/**
 * How many of the latest tool results a compaction keeps whole, with the calls that asked for them
 * and everything after them: what the agent is working from. Replaced by a summary, each would
 * be read again, and a re-read costs about what keeping it does.
 */
export const WORKING_SET_RESULTS = 3;

/** The working set never takes more than this share of the effective window, however large its results. */
const MAX_SHARE = 0.5;

function isWholeResult(m: Message): boolean {
  return m.agentVisible && m.role === 'tool' && m.kind === 'tool_result';
}

/**
 * Where the working set starts (a message index): the first message of the latest
 * WORKING_SET_RESULTS tool results' call groups. What follows the latest result (the agent's
 * latest words, the user's) is always in it; the results and their calls before it as far back as
 * `budget` tokens allow; all of it never more than half the window (then only what follows the
 * latest result stays, as a checkpoint's recent budget keeps it). Returns `messages.length` when
 * there is no result to keep.
 */
export function workingSetStart(
  messages: readonly Message[],
  units: readonly HistoryUnit[],
  count: (m: Message) => number,
  budget: number,
  effectiveWindow: number,
): number {
  const cap = Math.floor(effectiveWindow * MAX_SHARE);
  let results = 0;
  let after = 0; // what follows the latest result
  let set = 0; // the results, their calls and what lies between them
  let start = messages.length;
  for (let u = units.length - 1; u >= 0 && results < WORKING_SET_RESULTS; u--) {
    const unit = units[u];
    const tokens = unitTokens(messages, unit, count);
    let held = 0;
    for (let i = unit.start; i < unit.end; i++) if (isWholeResult(messages[i])) held++;
    if (results === 0 && held === 0) {
      after += tokens;
      if (after > cap) break;
      continue;
    }
    set += tokens;
    if (after + set > cap || (results > 0 && set > budget)) break;
    if (held === 0) continue;
    results += held;
    start = unit.start;
  }
  return start;
}

/** The working set's start for a strategy: its budget is the share of the window a checkpoint keeps recent messages in. */
export function workingSetFrom(messages: readonly Message[], ctx: Pick<StrategyContext, 'countTokens' | 'settings' | 'effectiveWindow'>, units: readonly HistoryUnit[] = toUnits(messages)): number {
  const budget = Math.min(ctx.settings.summary.keepRecentShare, 0.5) * ctx.effectiveWindow;
  return workingSetStart(messages, units, ctx.countTokens, budget, ctx.effectiveWindow);
}
