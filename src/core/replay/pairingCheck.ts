import type { Message } from '../model/message';
import { sharedStart } from './sharedStart';

/** Where one step of the check started: the message, its place among the visible ones, the breaks found before it. */
interface Step {
  at: number;
  visible: number;
  found: number;
}

/**
 * The call/result pairing check of every replayed request (the same breaks, in the same words, as
 * `validateHistory`), redone only from the last step the previous request's change could touch:
 * a step (an assistant message with its outputs, or one other message) depends only on the
 * messages from its start up to the one that ends it.
 */
export class PairingCheck {
  private messages: readonly Message[] = [];
  private steps: Step[] = [];
  private breaks: string[] = [];

  /** The breaks of the pairing invariant in `messages`, as `validateHistory` words them. */
  check(messages: readonly Message[]): string[] {
    const shared = sharedStart(this.messages, messages);
    // A step is reused when the message after it (which ended it) is still the same one.
    let keep = 0;
    while (keep + 1 < this.steps.length && this.steps[keep + 1].at < shared) keep++;
    const from = keep < this.steps.length && this.steps[keep].at < shared ? this.steps[keep] : { at: 0, visible: 0, found: 0 };
    this.steps.length = from === this.steps[keep] ? keep : 0;
    this.breaks.length = from.found;
    this.messages = messages;
    this.scan(from.at, from.visible);
    return this.breaks.slice();
  }

  private scan(start: number, firstVisible: number): void {
    const { messages, breaks } = this;
    const visibleAt: number[] = [];
    for (let k = start; k < messages.length; k++) if (messages[k].agentVisible) visibleAt.push(k);
    const message = (i: number) => messages[visibleAt[i - firstVisible]];
    const end = firstVisible + visibleAt.length;
    for (let i = firstVisible; i < end; i++) {
      this.steps.push({ at: visibleAt[i - firstVisible], visible: i, found: breaks.length });
      const m = message(i);
      if (m.role === 'assistant' && m.toolCalls?.length) {
        const expected = new Set(m.toolCalls.map((c) => c.id));
        let j = i + 1;
        while (j < end && message(j).role === 'tool') {
          const id = message(j).toolCallId ?? '';
          if (!expected.has(id)) breaks.push(`message ${j} answers call "${id}", which message ${i} did not make or already got`);
          expected.delete(id);
          j++;
        }
        for (const id of expected) breaks.push(`call "${id}" of message ${i} has no output`);
        i = j - 1;
      } else if (m.role === 'tool') {
        breaks.push(`message ${i} is a tool output ("${m.toolCallId ?? ''}") without a call before it`);
      }
    }
  }
}
