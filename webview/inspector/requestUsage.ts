import { cachedShareFell, type CacheMissCause, type RequestView } from '../../src/protocol/inspector';
import { countOf } from '../../src/protocol/wording';
import { h } from '../ui/dom';
import { percent, tokens } from '../ui/format';

/** "12,340 in (9,800 cached, 1,200 written) · 820 out (610 reasoning)": what the provider reported for one request. */
export function requestUsageText(t: RequestView): string {
  if (t.reportedInputTokens === undefined) return `${tokens(t.estimatedInputTokens)} in (estimated; the provider reported no usage)`;
  const cache = [t.cacheReadTokens !== undefined ? `${tokens(t.cacheReadTokens)} cached` : '', t.cacheWriteTokens ? `${tokens(t.cacheWriteTokens)} written` : ''].filter(Boolean);
  const input = `${tokens(t.reportedInputTokens)} in${cache.length ? ` (${cache.join(', ')})` : ''}`;
  if (t.reportedOutputTokens === undefined) return input;
  return `${input} · ${tokens(t.reportedOutputTokens)} out${t.reasoningTokens ? ` (${tokens(t.reasoningTokens)} reasoning)` : ''}`;
}

/** "Cache 31%, down from 94% at #13: AGENTS.md changed; 8,200 tokens sent before went uncached." */
export function cacheMissText(miss: CacheMissCause): string {
  const share = `Cache ${percent(miss.share, 0)}, down from ${percent(miss.previousShare, 0)} at #${miss.previousRequest}`;
  return `${share}: ${miss.cause}; ${countOf(miss.uncachedTokens, 'token')} sent before went uncached.`;
}

/** The drill-down's lines under a request's heading (`previous`: the request before it, when listed). */
export function renderRequestUsage(request: RequestView | undefined, previous: RequestView | undefined, miss: CacheMissCause | undefined): HTMLElement {
  const fell = !miss && request && previous ? cachedShareFell(previous, request) : undefined;
  return h('div', { class: 'request-usage' }, [
    request ? h('p', { class: 'request-usage-line', attrs: { 'data-field': 'usage' }, text: requestUsageText(request) }) : null,
    miss ? h('p', { class: 'cache-miss', attrs: { 'data-field': 'cache-miss', 'data-cause': miss.kind, role: 'note' }, text: cacheMissText(miss) }) : null,
    fell && request
      ? h('p', { class: 'request-usage-line', attrs: { 'data-field': 'cache-share' }, text: `Cache ${percent(fell.to, 0)}, down from ${percent(fell.from, 0)} at #${request.requestIndex - 1}: nothing sent before went uncached; the new tokens were not in the cache yet.` })
      : null,
  ]);
}
