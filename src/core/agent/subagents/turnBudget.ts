import type { ToolContext } from '../../tools/types';

/**
 * What one user turn may spend on subagents before the user is asked: how many it starts (its
 * subagents' own subagents included) and their tokens together. One reply with forty delegate
 * calls starts the first ones within the bound; the next waits on a card that asks to go on,
 * and approving it grants the same again. Several calls past the bound ask once, not each, and
 * after a "no" the turn starts no more.
 */
export class TurnSubagentSpend {
  started = 0;
  tokens = 0;
  private allowedSubagents: number;
  private allowedTokens: number;
  private asking?: Promise<void>;
  /** The user's "no" to going on: later calls past the bound get the same answer without another card. */
  private refusal?: unknown;

  constructor(private readonly bound: () => { maxPerTurn: number; maxTokensPerTurn: number }) {
    this.allowedSubagents = bound().maxPerTurn;
    this.allowedTokens = bound().maxTokensPerTurn;
  }

  /** Whether the turn's subagents together reached the tokens granted so far (a running subagent stops there). */
  tokensSpent(): boolean {
    return this.tokens >= this.allowedTokens;
  }

  /**
   * Lets one more subagent start: at once within the bound, or after the user approved going on
   * (through the call's own approval, so it shows as a card and a denial is the model's result).
   */
  async admit(ctx: ToolContext): Promise<void> {
    for (;;) {
      while (this.asking) await this.asking;
      if (this.started < this.allowedSubagents && !this.tokensSpent()) {
        this.started++;
        return;
      }
      if (this.refusal) throw this.refusal;
      const bound = this.bound();
      const why =
        this.started >= this.allowedSubagents
          ? `this turn has started ${this.started} subagents, the bound your settings set (tally.subagents.maxPerTurn: ${bound.maxPerTurn})`
          : `this turn's subagents have used ${this.tokens.toLocaleString('en-US')} tokens, past the bound your settings set (tally.subagents.maxTokensPerTurn: ${bound.maxTokensPerTurn.toLocaleString('en-US')})`;
      const asked = ctx.approve(
        {
          title: `Start more subagents? ${why[0].toUpperCase()}${why.slice(1)}`,
          detail: `Approving lets this turn start up to ${bound.maxPerTurn} more subagents and use up to ${bound.maxTokensPerTurn.toLocaleString('en-US')} more tokens on them.`,
          reason: `Asking because ${why}.`,
        },
        'starting more subagents this turn',
      );
      this.asking = asked.then(
        () => undefined,
        () => undefined,
      );
      try {
        await asked;
      } catch (error) {
        this.refusal = error;
        throw error;
      } finally {
        this.asking = undefined;
      }
      this.allowedSubagents = this.started + bound.maxPerTurn;
      this.allowedTokens = this.tokens + bound.maxTokensPerTurn;
    }
  }
}

/** The spend of each turn a delegate tool serves, found by the turn's abort signal (one per turn). */
export class TurnSpends {
  private readonly byTurn = new WeakMap<AbortSignal, TurnSubagentSpend>();

  constructor(private readonly bound: () => { maxPerTurn: number; maxTokensPerTurn: number }) {}

  of(signal: AbortSignal): TurnSubagentSpend {
    let spend = this.byTurn.get(signal);
    if (!spend) this.byTurn.set(signal, (spend = new TurnSubagentSpend(this.bound)));
    return spend;
  }
}
