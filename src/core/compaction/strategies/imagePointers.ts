import { describeImage, type ImagePart } from '../../images/imagePart';
import type { Message } from '../../model/message';
import { removedItem } from '../removedItems';
import type { CompactionStrategy, StrategyContext, StrategyOutcome } from '../types';

/** The text that stands in for an image compaction took out: what it was, where it came from, how to see it again. */
export function imagePointer(part: ImagePart): string {
  const from = part.origin === 'pasted' ? 'pasted by the user' : part.origin === 'tool' ? `read by a tool${part.path ? ` from ${part.path}` : ''}` : `attached from ${part.path ?? part.label}`;
  const again = part.ref ? `read_result ref_id="${part.ref}" shows it again` : part.path ? `read_file path="${part.path}" shows it again if the file is unchanged` : 'it is no longer stored';
  return `[Image removed by compaction: ${describeImage(part)}, ${from}; ${again}]`;
}

/**
 * Images older than the latest user message (and what was attached with it) are replaced by a
 * short pointer each. An image costs hundreds to thousands of tokens on every request; the pointer
 * costs a line, and the stored original stays readable. Runs first: the cheapest thing to give up.
 */
export class ImagePointers implements CompactionStrategy {
  readonly name = 'image-pointers';

  private candidates(messages: readonly Message[]): number[] {
    let latest = messages.length;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].kind === 'user') {
        latest = i;
        while (latest > 0 && messages[latest - 1].kind === 'attachment') latest--;
        break;
      }
    }
    const out: number[] = [];
    for (let i = 0; i < latest; i++) if (messages[i].images?.length && messages[i].agentVisible && !messages[i].pinned) out.push(i);
    return out;
  }

  shouldRun(messages: readonly Message[]): boolean {
    return this.candidates(messages).length > 0;
  }

  async apply(messages: readonly Message[], ctx: StrategyContext): Promise<StrategyOutcome> {
    const candidates = new Set(this.candidates(messages));
    const removed = [];
    const out: Message[] = [];
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i];
      if (!candidates.has(i)) {
        out.push(m);
        continue;
      }
      const pointers = (m.images ?? []).map(imagePointer).join('\n');
      out.push({ ...m, id: ctx.newId(), images: undefined, content: m.content ? `${m.content}\n${pointers}` : pointers, tokens: undefined, tokenEncoding: undefined, meta: { ...m.meta, replaces: m.meta?.replaces ?? [m.id], synthetic: true } });
      removed.push(removedItem(m, 'archived', this.name, ctx.countTokens(m)));
    }
    return { messages: out, removed };
  }
}
