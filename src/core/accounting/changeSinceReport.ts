import type { Message } from '../model/message';
import { TokensById } from './tokensById';

/** What one id adds to the change: in context and not sent, its tokens; sent and no longer in context, minus what it was sent with. */
function share(now: number | undefined, sent: number | undefined): number {
  if (now !== undefined && sent === undefined) return now;
  if (now === undefined && sent !== undefined) return -sent;
  return 0;
}

/**
 * The tokens the working context gained since the request the provider last reported on: every
 * visible message not sent then counts, every message sent then and gone since counts negatively
 * (by message id). Kept as a running sum: both lists are followed by position (TokensById), so a
 * turn costs one comparison per message plus what changed. While an id is held by two messages,
 * the lists are compared whole instead.
 */
export class ChangeSinceReport {
  private readonly current = new TokensById((m) => m.agentVisible);
  private readonly sent: TokensById;
  private sum = 0;
  private stale = true;

  /** `leftOut`: messages of a request that are not part of the conversation (the dynamic note). */
  constructor(leftOut: (m: Message) => boolean = () => false) {
    this.sent = new TokensById((m) => !leftOut(m));
  }

  /**
   * Makes both maps ahead of the first report (see TokensById.prepare): `working`, the working
   * context now, and `sent`, what the next request would carry, so the first report and the change
   * after it compare only what is new.
   */
  async prepare(working: readonly Message[], sent: readonly Message[], count: (m: Message) => number): Promise<void> {
    await this.current.prepare(working, count);
    await this.sent.prepare(sent, count);
    this.stale = true;
  }

  /** The messages of the request the provider reported on. */
  reported(messages: readonly Message[], count: (m: Message) => number): void {
    const outcome = this.sent.update(messages, count, (id, before, after) => {
      const now = this.current.tokens.get(id);
      this.sum += share(now, after) - share(now, before);
    });
    if (outcome !== 'updated') this.stale = true;
  }

  /** The change for this working context. */
  since(working: readonly Message[], count: (m: Message) => number): number {
    return this.runningSum(working, count) ?? this.whole();
  }

  /** Both lists compared whole, by id (the last message of a repeated id wins). */
  private whole(): number {
    const sent = this.sent.wholeMap();
    const current = this.current.wholeMap(); // brought up to this working context by runningSum
    let change = 0;
    for (const [id, tokens] of current) if (!sent.has(id)) change += tokens;
    for (const [id, tokens] of sent) if (!current.has(id)) change -= tokens;
    return change;
  }

  private runningSum(working: readonly Message[], count: (m: Message) => number): number | undefined {
    const outcome = this.current.update(working, count, (id, before, after) => {
      const sent = this.sent.tokens.get(id);
      this.sum += share(after, sent) - share(before, sent);
    });
    if (outcome === 'unsure' || !this.sent.trusted) {
      this.stale = true;
      return undefined;
    }
    if (outcome === 'rebuilt' || this.stale) {
      this.sum = 0;
      for (const [id, now] of this.current.tokens) this.sum += share(now, this.sent.tokens.get(id));
      for (const [id, sent] of this.sent.tokens) if (!this.current.tokens.has(id)) this.sum -= sent;
      this.stale = false;
    }
    return this.sum;
  }
}
