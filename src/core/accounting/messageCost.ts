/**
 * What the message being written will cost once sent, said before it is sent: the size of the
 * request that carries it (the meter's figure, which counts the prompt outside the conversation,
 * plus the message), the message's own tokens, the share of the effective window the context will
 * then fill, and whether a compaction will run first (the context would pass the compaction
 * threshold).
 */
import { MESSAGE_OVERHEAD_TOKENS } from './messageTokens';
import { formatShare, formatTokens, type WindowFigures } from './windowFigures';

export interface MessageCost {
  /** The message's tokens: its text, every attachment sent with it, and their framing. */
  tokens: number;
  /** The window's `used` after sending, and its share of the effective window. */
  usedAfter: number;
  shareAfter: number;
  /** The context would pass the compaction threshold: a compaction runs before the request. */
  compactsFirst: boolean;
  /** "next request 12,480 tokens (this message 3,210) → 58% of the window" */
  text: string;
  /** "a compaction will run first", when it will. */
  note?: string;
}

/**
 * `items`: the tokens of each message the send records (the text's own count and each attachment
 * item's), as a request lists them; each also carries the per-message framing.
 */
export function messageCost(figures: WindowFigures, items: readonly number[]): MessageCost {
  const tokens = items.reduce((sum, n) => sum + n + MESSAGE_OVERHEAD_TOKENS, 0);
  const usedAfter = figures.used + tokens;
  const shareAfter = figures.effectiveWindow > 0 ? usedAfter / figures.effectiveWindow : 0;
  const compactsFirst = usedAfter >= figures.compactAt;
  return {
    tokens,
    usedAfter,
    shareAfter,
    compactsFirst,
    text: `next request ${formatTokens(usedAfter)} tokens (this message ${formatTokens(tokens)}) → ${formatShare(shareAfter)} of the window`,
    note: compactsFirst ? 'a compaction will run first' : undefined,
  };
}
