import { defaultStrategies } from '../compaction/chain';
import { LocalSummarizer } from '../compaction/localSummarizer';
import { removedItem, transcriptIdsOf } from '../compaction/removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../compaction/types';
import { toUnits } from '../compaction/units';
import { archivedToolResult, summaryMessage } from '../model/factories';
import type { Message } from '../model/message';
import { withSettings, type ContextSettings } from '../settings';

/**
 * Context policies to replay a run with: Tally's chain and what its peers do, so the benchmark
 * compares them on the same recorded runs (issue "Transcripts, replay and benchmarks").
 */
export interface ReplayPolicy {
  name: string;
  description: string;
  strategies: CompactionStrategy[];
  settings(base: ContextSettings): ContextSettings;
}

/** Cline-style truncation: when full, drop the oldest half of the conversation (after the task). */
class DropOldestHalf implements CompactionStrategy {
  readonly name = 'drop-oldest-half';
  shouldRun(messages: readonly Message[]): boolean {
    return messages.length > 4;
  }
  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const units = toUnits(messages);
    const firstUser = messages.findIndex((m) => m.role === 'user');
    const start = units.findIndex((u) => u.start > firstUser);
    if (start < 0) return { messages: [...messages], removed: [] };
    const body = units.slice(start, units.length - 1);
    const drop = body.slice(0, Math.ceil(body.length / 2));
    const dropIdx = new Set<number>();
    for (const u of drop) for (let i = u.start; i < u.end; i++) dropIdx.add(i);
    const removed = messages.filter((_, i) => dropIdx.has(i)).map((m) => removedItem(m, 'dropped', this.name, ctx.countTokens(m)));
    return { messages: messages.filter((_, i) => !dropIdx.has(i)), removed };
  }
}

/** Observation masking (as in the "Complexity Trap" study): only the last N tool outputs stay. */
class KeepLastObservations implements CompactionStrategy {
  readonly name = 'observation-masking';
  constructor(private readonly keep: number) {}
  private targets(messages: readonly Message[]): number[] {
    const results: number[] = [];
    messages.forEach((m, i) => {
      if (m.role === 'tool' && m.kind === 'tool_result') results.push(i);
    });
    return results.slice(0, Math.max(0, results.length - this.keep));
  }
  shouldRun(messages: readonly Message[]): boolean {
    return this.targets(messages).length > 0;
  }
  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const targets = new Set(this.targets(messages));
    const removed = [];
    const out: Message[] = [];
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (!targets.has(i)) {
        out.push(m);
        continue;
      }
      removed.push(removedItem(m, 'archived', this.name, ctx.countTokens(m)));
      out.push(archivedToolResult(m, '[Old tool output omitted for brevity]', transcriptIdsOf(m), { id: ctx.newId() }));
    }
    return { messages: out, removed };
  }
}

/** Codex-style: at the trigger, everything but the user's messages becomes one summary. */
class SummarizeEverything implements CompactionStrategy {
  readonly name = 'summarize-all';
  private readonly summarizer = new LocalSummarizer();
  shouldRun(messages: readonly Message[]): boolean {
    return messages.length > 2;
  }
  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const keepUser = new Set<number>();
    let budget = Math.min(20_000, ctx.effectiveWindow * 0.15);
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (m.role === 'system' || (m.role === 'user' && m.kind === 'user' && ctx.countTokens(m) <= budget)) {
        if (m.role === 'user') budget -= ctx.countTokens(m);
        keepUser.add(i);
      }
    }
    const replaced = messages.filter((_, i) => !keepUser.has(i));
    const text = await this.summarizer.summarize({ messages, style: 'checkpoint', maxTokens: Math.min(4_000, ctx.effectiveWindow * 0.08) });
    const summary = summaryMessage(text, replaced.flatMap(transcriptIdsOf), { id: ctx.newId(), createdAt: messages[messages.length - 1].createdAt });
    const out = [...messages.filter((_, i) => keepUser.has(i)), summary];
    return { messages: out, removed: replaced.map((m) => removedItem(m, 'summarized', this.name, ctx.countTokens(m))), summary: text };
  }
}

export const REPLAY_POLICIES: ReplayPolicy[] = [
  {
    name: 'none',
    description: 'no management: the history grows until it overflows',
    strategies: [],
    settings: (base) => withSettings({ ...base, compactTrigger: 10, hardBlock: 10, offloadThresholdBytes: 0, truncation: { maxLines: 1e9, maxBytes: 1e12 } }),
  },
  {
    name: 'drop-half',
    description: 'drop the oldest half when full (Cline)',
    strategies: [new DropOldestHalf()],
    settings: (base) => withSettings({ ...base, compactTrigger: 0.9, hardBlock: 0.98, offloadThresholdBytes: 0, truncation: { maxLines: 1e9, maxBytes: 1e12 }, summary: { ...base.summary, targetShare: 0.6 } }),
  },
  {
    name: 'observation-masking',
    description: 'keep only the last 10 tool outputs (observation masking)',
    strategies: [new KeepLastObservations(10)],
    settings: (base) => withSettings({ ...base, compactTrigger: 0, hardBlock: 10, offloadThresholdBytes: 0, truncation: { maxLines: 1e9, maxBytes: 1e12 }, summary: { ...base.summary, targetShare: 0 } }),
  },
  {
    name: 'summarize-at-90',
    description: 'summarize everything at 90% (Codex)',
    strategies: [new SummarizeEverything()],
    settings: (base) => withSettings({ ...base, compactTrigger: 0.9, hardBlock: 0.98, offloadThresholdBytes: 0, summary: { ...base.summary, targetShare: 0.3 } }),
  },
  {
    name: 'tally',
    description: "Tally's default chain: truncate/offload, mask, summarize tool calls, checkpoint, episodes, emergency drop",
    strategies: defaultStrategies(),
    settings: (base) => withSettings(base),
  },
];

export function policyNamed(name: string): ReplayPolicy {
  const policy = REPLAY_POLICIES.find((p) => p.name === name);
  if (!policy) throw new Error(`unknown strategy "${name}"; choose one of: ${REPLAY_POLICIES.map((p) => p.name).join(', ')}`);
  return policy;
}

