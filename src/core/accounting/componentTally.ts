import type { Message } from '../model/message';
import type { ComponentTokens } from '../model/records';
import { addComponentTokens, emptyComponents } from './budget';

/**
 * The context budget's components from the messages (visible messages bucketed by what they are),
 * kept up to date instead of summed afresh: it remembers the messages
 * it summed and, for the next history, adjusts the sums at the positions whose message object
 * changed (and for messages added or gone at the end). Appending a message costs one comparison per
 * message in context and one count; any other change is exact too, just less cheap. A different
 * count function starts over.
 */
export class ComponentTally {
  private seen: Message[] = [];
  private sums: ComponentTokens = emptyComponents();
  private countUsed?: (m: Message) => number;

  componentsFor(messages: readonly Message[], count: (m: Message) => number): ComponentTokens {
    if (count !== this.countUsed) {
      this.seen = [];
      this.sums = emptyComponents();
      this.countUsed = count;
    }
    const seen = this.seen;
    const sums = this.sums;
    const shared = Math.min(seen.length, messages.length);
    for (let i = 0; i < shared; i++) {
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
    return { ...sums };
  }
}
