/**
 * "Turns until compaction": how many more user turns fit before the context reaches the compaction
 * threshold, if each adds what the session's recent turns added on average. A turn's growth is
 * measured between the first requests of consecutive user turns (a turn's tool calls all count to
 * it), over the turns whose user message is still in the working context. No `vscode` import.
 */
export interface TurnForecast {
  /** Tokens an average turn added. */
  perTurn: number;
  /** How many turns that average is over. */
  turns: number;
  /** Whole turns that still fit below the threshold, when turns grow the context. */
  turnsLeft?: number;
}

export function turnForecast(args: {
  /** When each user message still in the working context was written, oldest first. */
  userMessageTimes: readonly number[];
  /** The session's requests, oldest first. */
  requests: ReadonlyArray<{ createdAt: number; estimatedInputTokens: number }>;
  /** The context now and the compaction threshold, in the same measure as the requests' estimates. */
  usedNow: number;
  compactAt: number;
}): TurnForecast | undefined {
  const firsts: number[] = [];
  let from = 0;
  for (const at of args.userMessageTimes) {
    while (from < args.requests.length && args.requests[from].createdAt < at) from++;
    if (from < args.requests.length && firsts[firsts.length - 1] !== from) firsts.push(from);
  }
  if (firsts.length < 2) return undefined;
  const turns = firsts.length - 1;
  const perTurn = (args.requests[firsts[turns]].estimatedInputTokens - args.requests[firsts[0]].estimatedInputTokens) / turns;
  const rounded = Math.max(0, Math.round(perTurn));
  return perTurn > 0 ? { perTurn: rounded, turns, turnsLeft: Math.floor(Math.max(0, args.compactAt - args.usedNow) / perTurn) } : { perTurn: rounded, turns };
}
