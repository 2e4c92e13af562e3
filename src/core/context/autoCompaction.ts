import type { ContextBudget } from '../accounting/budget';
import type { FixedComponents } from '../accounting/usageBasis';
import type { Message } from '../model/message';
import type { AutoCompactionStop, CompactionEventRecord } from '../model/records';

/**
 * An automatic compaction should free at least this share of the effective window. Below it, the
 * next request lands near the trigger again and compacts again, paying a summary each time for
 * almost no room: a twentieth of the window is about one large tool result, the least worth a run.
 */
export const LOW_YIELD_SHARE = 0.05;
/** Automatic compactions in a row that each free less than LOW_YIELD_SHARE before the loop stops. */
export const LOW_YIELD_RUNS_TO_STOP = 2;

/** Why a request is held at the hard block instead of compacted: the setting, or the loop guard. */
export type CompactionHold = { reason: 'auto_off' } | { reason: 'loop_guard'; stop: AutoCompactionStop };

/** What no compaction can take out of the window: pinned items, the latest turn, system prompt and tools. */
export function uncompactable(working: readonly Message[], fixed: FixedComponents, count: (m: Message) => number): AutoCompactionStop['left'] {
  const visible = working.filter((m) => m.agentVisible);
  let lastUser = -1;
  for (let i = visible.length - 1; i >= 0 && lastUser < 0; i--) if (visible[i].role === 'user' && visible[i].kind === 'user') lastUser = i;
  let pinned = 0;
  let latestTurn = 0;
  visible.forEach((m, i) => {
    if (lastUser >= 0 && i >= lastUser) latestTurn += count(m);
    else if (m.pinned) pinned += count(m);
  });
  return { pinned, latestTurn, system: fixed.system + fixed.skills, tools: fixed.tools };
}

/**
 * Whether the session may compact by itself now. Off when the user turned automatic compaction
 * off; stopped for a while when automatic compactions free too little twice in a row (then each
 * request would compact again for nothing). It starts again once the context grew by
 * LOW_YIELD_SHARE since it stopped, or after the user compacts by hand.
 */
export class AutoCompactionGuard {
  private lowYieldRuns = 0;
  private stopped?: AutoCompactionStop;

  constructor(private readonly enabled: () => boolean) {}

  /** The stop in force (undefined when automatic compaction may run). */
  get stop(): AutoCompactionStop | undefined {
    return this.stopped;
  }

  /** May the session compact by itself at this budget? */
  allows(budget: ContextBudget): boolean {
    if (!this.enabled()) return false;
    if (this.stopped && budget.used >= this.stopped.resumeAtTokens) this.reset();
    return this.stopped === undefined;
  }

  /** Why a request at the hard block is held rather than compacted, when it is. */
  hold(budget: ContextBudget): CompactionHold | undefined {
    if (!this.enabled()) return { reason: 'auto_off' };
    return this.allows(budget) ? undefined : { reason: 'loop_guard', stop: this.stopped! };
  }

  /**
   * After an automatic compaction ran (before its record is stored): counts what it freed. The
   * second low-yield run in a row stops the loop; the stop is returned to be kept on the record.
   */
  review(event: CompactionEventRecord, budget: ContextBudget, left: () => AutoCompactionStop['left']): AutoCompactionStop | undefined {
    if (event.status === 'error') return undefined;
    const freed = Math.max(0, event.tokensBefore - event.tokensAfter);
    const least = Math.ceil(budget.effectiveWindow * LOW_YIELD_SHARE);
    if (freed >= least) {
      this.lowYieldRuns = 0;
      return undefined;
    }
    if (++this.lowYieldRuns < LOW_YIELD_RUNS_TO_STOP) return undefined;
    this.stopped = { freedTokens: freed, leastTokens: least, runs: this.lowYieldRuns, resumeAtTokens: event.tokensAfter + least, left: left() };
    return this.stopped;
  }

  /** The user compacted by hand: automatic compaction starts over. */
  reset(): void {
    this.lowYieldRuns = 0;
    this.stopped = undefined;
  }
}

/** The chat's and exec's words for a stop of the automatic loop. */
export function loopStopText(stop: AutoCompactionStop): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const { pinned, latestTurn, system, tools } = stop.left;
  return `Automatic compaction stopped: ${stop.runs} compactions in a row freed less than ${n(stop.leastTokens)} tokens each (the last freed ${n(stop.freedTokens)}). ` +
    `What is left cannot be compacted: pinned items ${n(pinned)} tokens, the latest turn ${n(latestTurn)}, system prompt ${n(system)}, tools ${n(tools)}. ` +
    `It starts again once the context grows to ${n(stop.resumeAtTokens)} tokens, or when you compact by hand.`;
}

/** The chat's and exec's words for a request held at the hard block. */
export function holdText(hold: CompactionHold, percent: number): string {
  const full = `The context is ${Math.round(percent * 100)}% full, at the limit where a request must be compacted first`;
  if (hold.reason === 'auto_off') return `${full}, and automatic compaction is off (tally.compaction.auto). Compact now, or send anyway and let the provider refuse it if it is too long.`;
  return `${full}, and automatic compaction is stopped because it freed too little. ${loopStopText(hold.stop)} Compact now, or send anyway.`;
}
