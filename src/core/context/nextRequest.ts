import type { ContextBudget } from '../accounting/budget';
import { EMPTY_FIXED } from '../accounting/usageBasis';
import type { CompactionResult } from '../compaction/compactor';
import type { ContextSession } from './contextSession';
import type { AutoCompactionGuard, CompactionHold } from './autoCompaction';
import { uncompactable } from './autoCompaction';
import type { PlannedRequest, PromptInput, PromptPart } from './contextSessionTypes';

export interface NextRequestOptions {
  signal?: AbortSignal;
  /** The user chose to send over the hard block: no compaction, no hold (the provider may refuse). */
  overBlock?: boolean;
}

/**
 * The next request, in the only right order: build the prompt for the room left, compact when the
 * budget says so and automatic compaction may run (blocked when still over the hard limit; held
 * when it may not and the hard limit is reached), rebuild the prompt after a compaction, then plan
 * the messages.
 */
export async function planNextRequest<P extends PromptPart>(session: ContextSession, guard: AutoCompactionGuard, prompt: PromptInput<P>, options: NextRequestOptions = {}): Promise<PlannedRequest<P>> {
  const build = typeof prompt === 'function' ? prompt : undefined;
  const roomOf = (budget: ContextBudget) => ({ effectiveWindow: budget.effectiveWindow, percentUsed: budget.percent });
  let prepared = build ? await build(roomOf(session.measure(EMPTY_FIXED))) : (prompt as P);
  session.notePromptFixed(prepared.fixed, prepared.sections);
  // Measured once per step: no await stands between a measure and the plan that reuses it.
  let budget = session.measure(prepared.fixed);
  let compaction: CompactionResult | undefined;
  let blocked = false;
  let hold: CompactionHold | undefined;
  if (!options.overBlock && budget.shouldCompact()) {
    if (guard.allows(budget)) {
      const before = budget;
      const fixed = prepared.fixed;
      compaction = await session.compact({
        trigger: budget.isBlocked() ? 'blocked' : 'auto',
        fixed,
        signal: options.signal,
        review: (event) => {
          const stop = guard.review(event, before, () => uncompactable(session.messages, fixed, session.count));
          return stop ? { autoStopped: stop } : undefined;
        },
      });
      budget = session.measure(prepared.fixed);
      blocked = budget.isBlocked();
      if (blocked && guard.stop) hold = { reason: 'loop_guard', stop: guard.stop };
    } else if (budget.isBlocked()) {
      blocked = true;
      hold = guard.hold(budget);
    }
  }
  const compactionId = compaction?.status === 'complete' ? compaction.id : undefined;
  if (compactionId && build && !blocked) {
    prepared = await build(roomOf(budget));
    session.notePromptFixed(prepared.fixed, prepared.sections);
    budget = session.measure(prepared.fixed);
  }
  return {
    status: blocked ? 'blocked' : 'ready',
    prompt: prepared,
    plan: session.planRequest(prepared.fixed, prepared.sections, budget),
    requestIndex: session.nextRequestIndex,
    compaction,
    compactionId,
    recovered: false,
    ...(hold ? { hold } : {}),
    ...(options.overBlock ? { overBlock: true } : {}),
  };
}
