import type { Message } from '../model/message';
import type { ComponentTokens } from '../model/records';
import { addComponentTokens, emptyComponents } from './budget';
import { listWork, markOf, unchangedBefore, type ListMark } from '../model/listLineage';

/**
 * The context budget's components from the messages (visible messages bucketed by what they are),
 * kept up to date instead of summed afresh: it remembers the messages
 * it summed and, for the next history, adjusts the sums at the positions whose message object
 * changed (and for messages added or gone at the end). A list whose lineage tells what changed
 * (model/listLineage.ts) is compared from its first change only, so appending a message costs its
 * count; any other list is compared whole (one comparison per message). A different count function
 * starts over.
 */
export class ComponentTally {
  private seen: Message[] = [];
  private sums: ComponentTokens = emptyComponents();
  private countUsed?: (m: Message) => number;
  private mark?: ListMark;

  componentsFor(messages: readonly Message[], count: (m: Message) => number): ComponentTokens {
    if (count !== this.countUsed) {
      this.seen = [];
      this.sums = emptyComponents();
      this.countUsed = count;
      this.mark = undefined;
    }
    const seen = this.seen;
    const sums = this.sums;
    const shared = Math.min(seen.length, messages.length);
    const from = Math.min(shared, unchangedBefore(this.mark, messages));
    listWork.positionsRead += Math.max(seen.length, messages.length) - from;
    for (let i = from; i < shared; i++) {
      if (seen[i] === messages[i]) continue;
      addComponentTokens(sums, seen[i], count, -1);
      addComponentTokens(sums, messages[i], count, 1);
      seen[i] = messages[i];
    }
    for (let i = shared; i < seen.length; i++) addComponentTokens(sums, seen[i], count, -1);
    for (let i = shared; i < messages.length; i++) {
      addComponentTokens(sums, messages[i], count, 1);
      seen.push(messages[i]);
    }
    seen.length = messages.length;
    this.mark = markOf(messages);
    return { ...sums };
  }
}
