import { markOf } from '../../core/model/listLineage';
import type { ContextSession } from '../../core/context/contextSession';
import type { RequestPlan } from '../../core/context/requestLedger';

interface KeptPlan {
  working: readonly unknown[];
  version: number | undefined;
  fixed: unknown;
  plan: RequestPlan;
}

const kept = new WeakMap<ContextSession, KeptPlan>();

/**
 * What the next request would carry, for the inspector, planned again only when the working
 * context or the prompt's fixed part changed since the last plan: the inspector refreshes many
 * times a turn while nothing it plans from moves. The working context tells each change it
 * takes (an append, a pin, a compaction or rewind replacing it), so no change goes unseen. The
 * budget is measured each time (the session keeps that measure until its inputs change, usage
 * reports included), so the figures always follow the latest report.
 */
export function currentPlan(session: ContextSession): RequestPlan {
  const working = session.messages;
  const version = markOf(working)?.version;
  const fixed = session.fixed;
  const last = kept.get(session);
  // An untracked list has no version: it is planned every time, as before.
  if (last && version !== undefined && last.working === working && last.version === version && last.fixed === fixed) {
    return { ...last.plan, budget: session.measure() };
  }
  const plan = session.planRequest();
  kept.set(session, { working, version, fixed, plan });
  return plan;
}
