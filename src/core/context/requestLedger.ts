import type { ContextBudget } from '../accounting/budget';
import { newId } from '../model/ids';
import type { Message } from '../model/message';
import type { RequestItem, RequestUsageRecord } from '../model/records';
import { textHash } from '../model/textHash';
import type { PromptSections } from '../prompt/promptSections';
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

/**
 * The per-request ledger: one record per request sent, with the provider's usage when reported.
 * The text of each prompt section (system sections, tool schemas, dynamic sections) is stored once
 * per session, with the first request that carried it; items refer to it by hash.
 */
export class RequestLedger {
  private storedTexts?: Set<string>;

  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: string,
    private nextIndex: number,
    private readonly now: () => number,
    /** Told about each record once it is stored. */
    private readonly onRecorded: (record: RequestUsageRecord) => void = () => undefined,
  ) {}

  /** Index the next recorded request will get. */
  get nextRequestIndex(): number {
    return this.nextIndex;
  }

  /** Hashes of the texts already stored for this session (read once, on the first request after open). */
  private async knownTexts(): Promise<Set<string>> {
    if (!this.storedTexts) {
      const known = new Set<string>();
      for (const record of await this.store.listRequestUsage(this.sessionId, { items: false })) for (const hash of Object.keys(record.texts ?? {})) known.add(hash);
      this.storedTexts = known;
    }
    return this.storedTexts;
  }

  private async newTexts(sections: PromptSections | undefined): Promise<Record<string, string> | undefined> {
    if (!sections) return undefined;
    const known = await this.knownTexts();
    const texts: Record<string, string> = {};
    let any = false;
    for (const { text } of [...sections.system, ...sections.tools, ...sections.dynamic]) {
      const hash = textHash(text);
      if (known.has(hash) || hash in texts) continue;
      texts[hash] = text;
      any = true;
    }
    return any ? texts : undefined;
  }

  async record(args: { plan: RequestPlan; model: string; reported?: ReportedUsage; compactionId?: string; sections?: PromptSections }): Promise<RequestUsageRecord> {
    const { plan, reported } = args;
    const texts = await this.newTexts(args.sections);
    const record: RequestUsageRecord = {
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
      reasoningTokens: reported?.reasoningTokens,
      compactionId: args.compactionId,
      items: plan.items,
      itemCount: plan.items.length,
    };
    if (texts) record.texts = texts;
    await this.store.addRequestUsage(record);
    for (const hash of Object.keys(texts ?? {})) this.storedTexts?.add(hash);
    this.onRecorded(record);
    return record;
  }
}
