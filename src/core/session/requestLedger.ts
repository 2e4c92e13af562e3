import type { ContextBudget } from '../accounting/budget';
import { newId } from '../model/ids';
import type { Message } from '../model/message';
import type { RequestItem, TurnUsageRecord } from '../model/records';
import type { SessionStore } from '../ports/sessionStore';
import type { ReportedUsage } from '../providers/types';

/** The messages of one request, what each costs, and the budget they make with the prompt. */
export interface RequestPlan {
  messages: Message[];
  items: RequestItem[];
  budget: ContextBudget;
  /** Synthetic outputs the read-path normalization had to add (should be none). */
  repaired: number;
}

/** The per-request ledger: one record per request sent, with the provider's usage when reported. */
export class RequestLedger {
  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: string,
    private nextIndex: number,
    private readonly now: () => number,
  ) {}

  /** Index the next recorded request will get. */
  get nextRequestIndex(): number {
    return this.nextIndex;
  }

  async record(args: { plan: RequestPlan; model: string; reported?: ReportedUsage; compactionId?: string }): Promise<TurnUsageRecord> {
    const { plan, reported } = args;
    const record: TurnUsageRecord = {
      id: newId('u'),
      sessionId: this.sessionId,
      requestIndex: this.nextIndex++,
      createdAt: this.now(),
      model: args.model,
      contextWindow: plan.budget.contextWindow,
      maxOutputTokens: plan.budget.maxOutputTokens,
      components: { ...plan.budget.components },
      estimatedInputTokens: plan.budget.estimatedTotal,
      reportedInputTokens: reported?.inputTokens,
      reportedOutputTokens: reported?.outputTokens,
      cacheReadTokens: reported?.cacheReadTokens,
      cacheWriteTokens: reported?.cacheWriteTokens,
      compactionId: args.compactionId,
      items: plan.items,
    };
    await this.store.addTurnUsage(record);
    return record;
  }
}
