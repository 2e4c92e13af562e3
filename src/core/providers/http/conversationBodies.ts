import type { Message } from '../../model/message';

/** Conversations whose body builders are kept: the parent and the subagents it runs at once. */
const KEPT_CONVERSATIONS = 8;

/**
 * One body builder per conversation sent through a provider, found by the conversation's first
 * message. A builder reuses the bytes of the body it built last; a subagent's requests through the
 * same provider would otherwise replace the parent's, and the parent's next body (10,000 messages)
 * would be built again message by message. The least recently used builder goes first.
 */
export class ConversationBodies<B> {
  private readonly builders = new Map<Message | undefined, B>();

  constructor(
    private readonly make: () => B,
    private readonly kept = KEPT_CONVERSATIONS,
  ) {}

  for(messages: readonly Message[]): B {
    const key = messages[0];
    let builder = this.builders.get(key);
    if (builder) this.builders.delete(key);
    else builder = this.make();
    this.builders.set(key, builder);
    if (this.builders.size > this.kept) this.builders.delete(this.builders.keys().next().value as Message | undefined);
    return builder;
  }
}
