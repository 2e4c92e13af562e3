import type { Message } from '../model/message';
import type { RemovedItem } from '../model/records';
import { ImagePointers } from './strategies/imagePointers';
import { EmergencyDrop } from './strategies/emergencyDrop';
import { GoalBatchCompaction } from './strategies/goalBatchCompaction';
import { ThresholdSummarization } from './strategies/thresholdSummarization';
import { ToolCallSummarization } from './strategies/toolCallSummarization';
import { ToolResultMasking } from './strategies/toolResultMasking';
import { nextTurn } from '../nextTurn';
import { STEP_MESSAGES } from './steps';
import type { CompactionStrategy, StrategyContext } from './types';
import { totalTokens } from './units';

/** The compaction strategies, cheapest first. */
export function defaultStrategies(): CompactionStrategy[] {
  return [new ImagePointers(), new ToolResultMasking(), new ToolCallSummarization(), new ThresholdSummarization(), new GoalBatchCompaction(), new EmergencyDrop()];
}

export interface ChainOutcome {
  messages: Message[];
  removed: RemovedItem[];
  strategiesRun: string[];
  summary?: string;
}

/**
 * Counts `messages` a slice at a time, with a turn of the event loop between slices. What a
 * strategy made (a pointer for each of tens of thousands of results) is counted here once (the
 * count is kept with each message), not all at once by the next sum over the history.
 */
async function countInSlices(messages: readonly Message[], count: (m: Message) => number): Promise<void> {
  // A slice ends after so many messages or characters, whichever comes first: a message counted
  // before costs nothing, one not counted yet costs its text's tokenizing.
  let messagesRead = 0;
  let chars = 0;
  for (const m of messages) {
    if (!m.agentVisible) continue;
    count(m);
    chars += m.content.length;
    if (++messagesRead >= STEP_MESSAGES || chars >= COUNT_SLICE_CHARS) {
      messagesRead = chars = 0;
      await nextTurn();
    }
  }
}

/** Characters of messages counted between two turns of the event loop (a few milliseconds of tokenizing). */
const COUNT_SLICE_CHARS = 32 * 1024;

/** Runs strategies in order until the history fits the target; each one sees the previous one's output. */
export async function runStrategyChain(
  messages: readonly Message[],
  strategies: readonly CompactionStrategy[],
  ctx: StrategyContext & { onStrategy?: (name: string) => void },
): Promise<ChainOutcome> {
  let current: Message[] = [...messages];
  const removed: RemovedItem[] = [];
  const strategiesRun: string[] = [];
  let summary: string | undefined;
  for (const strategy of strategies) {
    // Each strategy starts on a turn of the event loop of its own: over a long history each one
    // counts and walks every message, and the host must keep answering between them.
    await nextTurn();
    if (ctx.signal?.aborted) throw new Error('compaction cancelled');
    if (ctx.fixedTokens + totalTokens(current, ctx.countTokens) <= ctx.targetTokens) break;
    if (!strategy.shouldRun(current, ctx)) continue;
    ctx.onStrategy?.(strategy.name);
    const outcome = await strategy.apply(current, ctx);
    if (outcome.removed.length === 0) continue;
    current = outcome.messages;
    await countInSlices(current, ctx.countTokens);
    removed.push(...outcome.removed);
    strategiesRun.push(strategy.name);
    summary = outcome.summary ?? summary;
  }
  // An item one strategy made (a result's pointer) and a later one removed was never sent: the
  // removed items are those the history had, each once.
  const had = new Set(messages.map((m) => m.id));
  return { messages: current, removed: removed.filter((item) => had.has(item.messageId)), strategiesRun, summary };
}
