import type { Message } from '../../model/message';
import { describedRefs, refsListedIn, storedOutputsBlock } from '../storedOutputs';
import type { StrategyContext } from '../types';

/**
 * Before tool results are summarized or dropped, keeps each one that is not stored yet in the
 * store, so the summary can list a read_result ref for every output it replaces. Returns copies
 * carrying the ref; a result that could not be stored stays as it was (the transcript has it).
 */
export async function storeReplacedResults(
  messages: readonly Message[],
  ctx: StrategyContext,
  replaced: (m: Message, index: number) => boolean = () => true,
): Promise<Message[]> {
  const out: Message[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'tool' || m.kind !== 'tool_result' || m.meta?.offloadRef || !replaced(m, i)) {
      out.push(m);
      continue;
    }
    const ref = await ctx.offload(m.content, m.toolName ?? 'tool', m.toolCallId);
    out.push(ref ? { ...m, meta: { ...m.meta, offloadRef: ref } } : m);
  }
  return out;
}

/** The block a summary, digest or marker ends with so the refs of what it replaced stay usable, each named by what it holds. */
export function storedOutputsLine(messages: readonly Message[]): string {
  return storedOutputsBlock(describedRefs(messages));
}

/** Every stored-output ref the messages carry: their own, and those listed in summaries they hold. */
export function refsIn(messages: readonly Message[]): string[] {
  const refs = new Set<string>();
  for (const m of messages) {
    if (m.meta?.offloadRef) refs.add(m.meta.offloadRef);
    for (const ref of refsListedIn(m.content).keys()) refs.add(ref);
  }
  return [...refs];
}
