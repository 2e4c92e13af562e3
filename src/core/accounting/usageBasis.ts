import type { Message } from '../model/message';
import type { ComponentTokens, RequestUsageRecord } from '../model/records';
import type { ContextSettings } from '../settings';
import { ContextBudget } from './budget';
import { Calibration } from './calibration';
import { ChangeSinceReport } from './changeSinceReport';
import { ComponentTally } from './componentTally';

/** Tokens outside the conversation, measured by the prompt builder. */
export type FixedComponents = Pick<ComponentTokens, 'system' | 'skills' | 'tools' | 'hooks'>;

export const EMPTY_FIXED: FixedComponents = { system: 0, skills: 0, tools: 0 };

export function fixedTotal(fixed: FixedComponents): number {
  return fixed.system + fixed.skills + fixed.tools + (fixed.hooks ?? 0);
}

/** What a sent request carried, by our estimate, and what the provider said about it. */
export interface ObservedRequest {
  budget: ContextBudget;
  /** The messages sent (counted whole with `count`; the basis's `leftOut` ones are not conversation). */
  messages: readonly Message[];
  count: (m: Message) => number;
  reportedInputTokens?: number;
}

/**
 * The budget's basis. Once the provider reported usage for a request, the total is that report plus
 * the estimate of what changed since; before that (or after a report too far off to trust) it is
 * the local estimate. Learns the calibration factor from every report.
 */
export class UsageBasis {
  /** reported ÷ estimated for this session's model. */
  readonly calibration = new Calibration();
  private last?: { reportedInput: number; fixed: number };
  /** The last report of a session opened again, with the estimate of that request, until a new report comes. */
  private resumed?: { reportedInput: number; estimated: number };
  private readonly tally = new ComponentTally();
  private readonly change: ChangeSinceReport;

  /** `leftOut`: messages of a request that are not part of the conversation (the dynamic note). */
  constructor(leftOut?: (m: Message) => boolean) {
    this.change = new ChangeSinceReport(leftOut);
  }

  observe(request: ObservedRequest): void {
    const reported = request.reportedInputTokens;
    if (!reported) return;
    // Compare like with like: the estimate of exactly what was sent.
    const estimated = request.budget.estimatedTotal;
    this.calibration.observe(estimated, reported);
    this.resumed = undefined;
    // An untrusted report leaves the estimate as the basis.
    if (!this.trusted(reported, estimated)) {
      this.last = undefined;
      return;
    }
    this.change.reported(request.messages, request.count);
    this.last = { reportedInput: reported, fixed: fixedTotal(request.budget.components) };
  }

  /**
   * Takes up the report of a stored session's last request when the session is opened again, so
   * the figures after a resume or a window reload are the ones shown before it. Only the request's
   * figures are needed (no item list, which would cost reading older files on open): until the next
   * report, the change since is the estimate now minus the estimate of that request. That equals
   * the running change (new messages count, messages gone since count negatively, the fixed part's
   * change) because a message's count is stored with it and is the same as when it was sent.
   */
  resume(last: Pick<RequestUsageRecord, 'estimatedInputTokens' | 'reportedInputTokens'>): void {
    const reported = last.reportedInputTokens;
    if (!reported || !this.trusted(reported, last.estimatedInputTokens)) return;
    this.resumed = { reportedInput: reported, estimated: last.estimatedInputTokens };
    this.last = undefined;
  }

  /** Makes what the first report's change is counted against ahead of it (a reopened long session): see ChangeSinceReport.prepare. */
  prepare(working: readonly Message[], sent: readonly Message[], count: (m: Message) => number): Promise<void> {
    return this.change.prepare(working, sent, count);
  }

  /** A report far from the estimate is more likely a proxy's or a server's bug than a tokenizer difference; trusting it could stop compaction. */
  private trusted(reported: number, estimated: number): boolean {
    const ratio = reported / Math.max(1, estimated);
    return ratio >= 0.5 && ratio <= 2;
  }

  /**
   * The budget for a working context. With a trusted report, the conversation components are
   * scaled so that they add up to the report plus what changed since.
   */
  measure(args: {
    working: readonly Message[];
    fixed: FixedComponents;
    count: (m: Message) => number;
    settings: ContextSettings;
    contextWindow?: number;
    maxOutputTokens?: number;
  }): ContextBudget {
    const { working, fixed, count, settings } = args;
    const budget = new ContextBudget({
      contextWindow: args.contextWindow ?? settings.contextWindow,
      maxOutputTokens: args.maxOutputTokens ?? settings.maxOutputTokens,
      settings,
    });
    const components = { ...this.tally.componentsFor(working, count), ...fixed };
    budget.setComponents(components);
    budget.estimatedTotal = budget.used;
    const basis = this.last;
    const fixedNow = fixedTotal(fixed);
    let delta: number;
    if (basis) delta = fixedNow - basis.fixed + this.change.since(working, count);
    else if (this.resumed) delta = budget.estimatedTotal - this.resumed.estimated;
    else return budget;
    const reportedInput = basis?.reportedInput ?? this.resumed!.reportedInput;
    const conversation = components.messages + components.toolResults + components.summaries + (components.plan ?? 0);
    const reportedConversation = Math.max(0, reportedInput + delta - fixedNow);
    if (conversation > 0) {
      const scale = reportedConversation / conversation;
      const messages = Math.round(components.messages * scale);
      const toolResults = Math.round(components.toolResults * scale);
      const plan = Math.round((components.plan ?? 0) * scale);
      budget.setComponents({ ...components, messages, toolResults, plan, summaries: Math.max(0, reportedConversation - messages - toolResults - plan) });
      budget.basis = 'reported';
    }
    return budget;
  }
}
