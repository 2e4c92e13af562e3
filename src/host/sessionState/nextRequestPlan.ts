import type { RequestPlan } from '../../core/context/requestLedger';
import { markOf } from '../../core/model/listLineage';
import type { WorkingContext } from './sessionInputs';

/**
 * What the next request would carry, planned again only when the working context or the prompt's
 * fixed part changed since the last plan (the working context tells each change it takes through
 * its lineage). The budget is measured each time, so the figures follow the latest report.
 */
export class NextRequestPlan {
  /** The plan as last made, with what it was made from. */
  private planned?: { plan: RequestPlan; working: readonly unknown[]; version?: number; fixed: unknown };

  of(context: WorkingContext): RequestPlan {
    const working = context.messages;
    const version = markOf(working)?.version;
    const last = this.planned;
    // An untracked list has no version: it is planned every time.
    if (last && version !== undefined && last.working === working && last.version === version && last.fixed === context.fixed) return { ...last.plan, budget: context.measure() };
    const plan = context.planNextRequest();
    this.planned = { plan, working, version, fixed: context.fixed };
    return plan;
  }
}
