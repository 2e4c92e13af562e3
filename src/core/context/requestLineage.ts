import { markOf, noteDerived, unchangedBefore, type ListMark } from '../model/listLineage';
import type { Message } from '../model/message';
import type { RequestItem } from '../model/records';

/** One request's lists as requestContent built them, with what they were built from. */
export interface BuiltRequest {
  messages: readonly Message[];
  items: readonly RequestItem[];
  /** The conversation's messages and their items (ConversationItems), lists their owners change in place. */
  source: readonly Message[];
  conversation: readonly RequestItem[];
  /** The items before the conversation's (prompt sections, tools, their framing). */
  promptItems: number;
  /** Where the dynamic note stands in `messages`, -1 when there is none. */
  noteAt: number;
  /** The items were rebuilt by id (a message with the note's id), not by position. */
  remapped: boolean;
  /** Built with the prompt's sections (a request) or from its numbers only (a view's plan). */
  withSections: boolean;
}

type Kept = BuiltRequest & { sourceMark?: ListMark; conversationMark?: ListMark; prompt: readonly RequestItem[]; sourceLength: number };

/**
 * Tells each request's message and item lists how they differ from the previous request's
 * (model/listLineage.ts), from what changed in the lists they were built from: the conversation's
 * change since then, where the dynamic note stood and stands, and the prompt's items. So the body,
 * the usage basis and the stored change of the item list read only what is new. Requests and the
 * views' plans (no sections: no note, one prompt item) are two lineages, so a view's plan between
 * two requests does not make the second look changed from its start.
 */
export class RequestLineage {
  private readonly last = new Map<boolean, Kept>();

  note(built: BuiltRequest): void {
    const last = this.last.get(built.withSections);
    let firstMessage = 0;
    let firstItem = 0;
    if (last && !last.remapped && !built.remapped) {
      // Past the conversation's end stands what is made anew for each request (the message framing).
      const noteAt = Math.min(last.noteAt < 0 ? Infinity : last.noteAt, built.noteAt < 0 ? Infinity : built.noteAt, last.sourceLength, built.source.length);
      firstMessage = Math.min(unchangedBefore(last.sourceMark, built.source), noteAt);
      let samePrompt = 0;
      const prompt = Math.min(last.promptItems, built.promptItems);
      while (samePrompt < prompt && last.prompt[samePrompt] === built.items[samePrompt]) samePrompt++;
      const conversation = Math.min(unchangedBefore(last.conversationMark, built.conversation), noteAt);
      firstItem = samePrompt === last.promptItems && samePrompt === built.promptItems ? samePrompt + conversation : samePrompt;
    }
    noteDerived(built.messages, last?.messages, firstMessage);
    noteDerived(built.items, last?.items, firstItem);
    this.last.set(built.withSections, { ...built, sourceMark: markOf(built.source), conversationMark: markOf(built.conversation), prompt: built.items.slice(0, built.promptItems), sourceLength: built.source.length });
  }
}
