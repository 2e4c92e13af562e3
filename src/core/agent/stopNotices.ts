/** What the chat says when the model's answer did not end normally. */
export const STOP_NOTICES = {
  refusal: 'The model declined to answer this request (it stopped with a refusal). Rephrase the request or ask something else.',
  cutToolCall: 'The answer was cut at the output limit while the model was writing a tool call, so the call was not run. Continue to let the model carry on.',
  cutText: 'The answer was cut at the output limit. Continue to let the model carry on.',
  tooManyPauses: (n: number) => `The provider paused this turn ${n} times; send a message to continue.`,
  textToolCalls: (names: readonly string[]) => `The model wrote its tool call${names.length === 1 ? '' : 's'} (${names.join(', ')}) as text rather than as a structured call (small local models do this); Tally read ${names.length === 1 ? 'it' : 'them'} as ${names.length === 1 ? 'a call' : 'calls'}.`,
  toolCallAsText: (sample: string) => `The model wrote a tool call as text (${JSON.stringify(sample)}) instead of calling the tool, so nothing ran. The model or its server does not turn its tool calls into structured calls: try a model with tool support, or ask again.`,
  refusedAutoOff: (said: string) => `The model's server refused the request as too long for its context window, and automatic compaction is off (tally.compaction.auto), so Tally did not compact. Compact now to go on. The server said: ${said}`,
} as const;
