import type { Message } from '../../model/message';
import type { RemovedItem } from '../../model/records';
import { nextTurn } from '../../nextTurn';
import { removedItem } from '../removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../types';
import { ARCHIVED_ERROR_PREFIX, errorLineOf, isFailingResult } from '../sessionFacts';
import { outputGist } from '../storedOutputs';
import { focusMatcher } from './focus';

/**
 * Tool-result masking: archive tool results older than the last N, leaving a pointer (tool, arguments, how to
 * retrieve). Runs only when the batch frees enough tokens to be worth a prompt-cache miss.
 */
export class ToolResultMasking implements CompactionStrategy {
  readonly name = 'tool-result-masking';

  private candidates(messages: readonly Message[], ctx: StrategyContext): number[] {
    const results: number[] = [];
    messages.forEach((m, i) => {
      if (m.agentVisible && m.role === 'tool' && m.kind === 'tool_result' && !m.pinned) results.push(i);
    });
    const focus = focusMatcher(ctx.focus, messages);
    // The newest failing output stays whole: it is what the agent is working against.
    const newestFailure = results.filter((i) => isFailingResult(messages[i]) && errorLineOf(messages[i].content)).pop();
    return results.slice(0, Math.max(0, results.length - ctx.settings.masking.keepLast)).filter((i) => i !== newestFailure && !focus.matches(messages[i]));
  }

  shouldRun(messages: readonly Message[], ctx: StrategyContext): boolean {
    const saved = this.candidates(messages, ctx).reduce((sum, i) => sum + ctx.countTokens(messages[i]) - POINTER_TOKENS, 0);
    return saved >= ctx.settings.masking.minBatchTokens;
  }

  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const candidates = this.candidates(messages, ctx);
    const callById = new Map<string, { name: string; arguments: string }>();
    for (const m of messages) for (const c of m.toolCalls ?? []) callById.set(c.id, c);
    const archived = new Map<number, { pointer: Message; removed: RemovedItem }>();
    const archive = async (i: number) => {
      const m = messages[i];
      ctx.progress(`archiving ${m.toolName ?? 'tool'} result`);
      const ref = m.meta?.offloadRef ?? (await ctx.offload(m.content, m.toolName ?? 'tool', m.toolCallId));
      const call = m.toolCallId ? callById.get(m.toolCallId) : undefined;
      const args = call ? call.arguments.replace(/\s+/g, ' ').slice(0, 200) : '';
      const tokens = ctx.countTokens(m);
      const pointer =
        `[Archived tool result: ${m.toolName ?? call?.name ?? 'tool'}${args ? ` ${args}` : ''} — ${outputGist(m)}, ${tokens.toLocaleString('en-US')} tokens, ` +
        (ref ? `retrievable with read_result ref_id="${ref}"]` : 'kept in the session transcript]') +
        archivedErrorLine(m);
      archived.set(i, {
        pointer: {
          ...m,
          id: ctx.newId(),
          kind: 'tool_result_archived',
          content: pointer,
          tokens: undefined,
          tokenEncoding: undefined,
          meta: { ...m.meta, offloadRef: ref, replaces: m.meta?.replaces ?? [m.id], synthetic: true, truncated: undefined },
        },
        removed: removedItem({ ...m, meta: { ...m.meta, offloadRef: ref } }, 'archived', this.name, tokens),
      });
    };
    // A few results are stored at once: each is files written one after another (content, then its
    // ref), and a long session archives tens of thousands, so one at a time the disk's round trips
    // added up to minutes.
    let next = 0;
    // A preview stores nothing (its refs come at once): the workers still pause together for a turn of the event loop.
    let sinceTurn = 0;
    let pause: Promise<void> | undefined;
    const worker = async () => {
      while (next < candidates.length) {
        if (pause) {
          await pause;
          continue;
        }
        await archive(candidates[next++]);
        if (++sinceTurn >= ARCHIVED_PER_TURN && !pause) {
          sinceTurn = 0;
          pause = nextTurn().then(() => (pause = undefined));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(OFFLOADS_AT_ONCE, candidates.length) }, worker));
    const out: Message[] = [];
    const removed: RemovedItem[] = [];
    for (let i = 0; i < messages.length; i++) {
      const done = archived.get(i);
      out.push(done ? done.pointer : messages[i]);
      if (done) removed.push(done.removed);
    }
    return { messages: out, removed };
  }
}

/** Results stored at once (libuv runs four file operations at a time). */
const OFFLOADS_AT_ONCE = 4;
/** Results archived between two turns of the event loop, at most (each is a pointer and a preview made). */
const ARCHIVED_PER_TURN = 100;

/** A failing result's pointer keeps its error line, so the agent still knows what went wrong. */
function archivedErrorLine(m: Message): string {
  const line = isFailingResult(m) ? errorLineOf(m.content) : undefined;
  return line ? `\n${ARCHIVED_ERROR_PREFIX}${line.slice(0, 600)}` : '';
}

/** Rough size of a pointer, so tiny results are not "archived" for no gain. */
const POINTER_TOKENS = 40;
