import type { ChatTurnUsage } from '../../src/protocol/chat';
import { h } from '../ui/dom';
import { percent, tokens } from '../ui/format';
import { countOf } from '../../src/protocol/wording';

/** Dollars with enough digits to tell small turns apart: $0.0042, $0.13, $2.40. */
export function dollars(amount: number): string {
  if (amount > 0 && amount < 0.01) return `$${amount.toFixed(4)}`;
  return `$${amount.toFixed(2)}`;
}

/** The line under a turn: how big its request was, what the cache saved, what it cost. */
export function renderTurnUsage(id: string, usage: ChatTurnUsage): HTMLElement {
  const parts: Array<[string, string, string]> = [
    ['request', `Last request ${countOf(usage.lastRequestTokens, 'token')}`, 'Input tokens of the last request of this turn: how much context it carried then (the meter above shows the context now)'],
  ];
  if (usage.requests > 1) parts.push(['requests', `${countOf(usage.requests, 'request')}, ${tokens(usage.inputTokens)} in`, 'Input tokens over all requests of this turn']);
  if (usage.cachedTokens !== undefined) {
    const share = usage.inputTokens > 0 ? usage.cachedTokens / usage.inputTokens : 0;
    parts.push(['cached', `${tokens(usage.cachedTokens)} cached (${percent(share, 0)})`, 'Input tokens the provider read from its prompt cache']);
  }
  if (usage.cacheWriteTokens) parts.push(['written', `${tokens(usage.cacheWriteTokens)} written to cache`, 'Input tokens the provider wrote to its prompt cache (billed at the cache-write price)']);
  const reasoning = usage.reasoningTokens ? ` (${tokens(usage.reasoningTokens)} reasoning)` : '';
  parts.push(['output', `${tokens(usage.outputTokens)} out${reasoning}`, 'Output tokens over all requests of this turn, with those the model spent reasoning']);
  if (usage.cost !== undefined) parts.push(['cost', dollars(usage.cost), 'Estimated from the model price per million tokens (tally.modelPrices overrides it)']);
  if (usage.subagents) {
    const s = usage.subagents;
    parts.push(['subagents', `incl. subagents: ${countOf(s.requests, 'request')}, ${tokens(s.inputTokens)} in, ${tokens(s.outputTokens)} out${s.cost !== undefined ? `, ${dollars(s.cost)}` : ''}`, "The figures of this line include the requests of the subagents this turn started, each in its own window; this is their share"]);
  }
  return h('div', { class: 'entry turn-usage', attrs: { 'data-entry-id': id, 'data-kind': 'usage' } },
    parts.map(([field, text, title]) => h('span', { class: 'usage-part', title, attrs: { 'data-field': field }, text })),
  );
}
