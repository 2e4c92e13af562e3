import type { Message } from '../model/message';
import type { ComponentTokens, TurnUsageRecord } from '../model/records';
import type { ContextSettings } from '../settings';
import { ContextBudget } from './budget';
import { Calibration } from './calibration';
import { ChangeSinceReport } from './changeSinceReport';
import { ComponentTally } from './componentTally';
import { MESSAGE_OVERHEAD_TOKENS } from './messageTokens';

/** Tokens outside the conversation, measured by the prompt builder. */
export type FixedComponents = Pick<ComponentTokens, 'system' | 'skills' | 'tools'>;

export const EMPTY_FIXED: FixedComponents = { system: 0, skills: 0, tools: 0 };

export function fixedTotal(fixed: FixedComponents): number {
  return fixed.system + fixed.skills + fixed.tools;
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
    this.takeReport(reported, estimated, request.budget.components, request.messages, request.count);
  }

  /**
   * Takes up the report of a stored session's last request when the session is opened again, so
   * the figures after a resume or a window reload are the ones shown before it. The request's
   * messages are its conversation items (each item is a message's count without its framing).
   * A record without items by section (written before there were sections) leaves the estimate.
   */
  resume(last: Pick<TurnUsageRecord, 'estimatedInputTokens' | 'reportedInputTokens' | 'components' | 'items'>): void {
    if (!last.reportedInputTokens || !last.items.some((i) => i.section)) return;
    const sent = new Map<string, number>();
    for (const item of last.items) if (item.section === 'conversation' && item.kind !== 'framing') sent.set(item.messageId, item.tokens + MESSAGE_OVERHEAD_TOKENS);
    const messages = [...sent.keys()].map((id) => ({ id, agentVisible: true }) as Message);
    this.takeReport(last.reportedInputTokens, last.estimatedInputTokens, last.components, messages, (m) => sent.get(m.id) ?? 0);
  }

  private takeReport(reported: number, estimated: number, components: ComponentTokens, messages: readonly Message[], count: (m: Message) => number): void {
    // A report far from the estimate is more likely a proxy's or a server's bug than a tokenizer
    // difference; trusting it could stop compaction, so the estimate stays the basis then.
    const ratio = reported / Math.max(1, estimated);
    if (ratio < 0.5 || ratio > 2) {
      this.last = undefined;
      return;
    }
    this.change.reported(messages, count);
    this.last = { reportedInput: reported, fixed: fixedTotal(components) };
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
    if (!basis) return budget;
    const fixedNow = fixedTotal(fixed);
    const delta = fixedNow - basis.fixed + this.change.since(working, count);
    const conversation = components.messages + components.toolResults + components.summaries;
    const reportedConversation = Math.max(0, basis.reportedInput + delta - fixedNow);
    if (conversation > 0) {
      const scale = reportedConversation / conversation;
      const messages = Math.round(components.messages * scale);
      const toolResults = Math.round(components.toolResults * scale);
      budget.setComponents({ ...components, messages, toolResults, summaries: Math.max(0, reportedConversation - messages - toolResults) });
      budget.basis = 'reported';
    }
    return budget;
  }
}
