/**
 * Why a request read less from the provider's prompt cache than the one before it. A provider
 * caches a request's prefix: the first item that differs from the previous request's list ends
 * what can be reused, and everything the previous request also sent after it is paid again.
 */
import type { RequestItem, RequestUsageRecord } from '../model/records';

export type CacheMissKind = 'agents-md' | 'tools' | 'skills' | 'system' | 'dynamic' | 'compaction' | 'message' | 'unchanged';

export interface CacheMissCause {
  kind: CacheMissKind;
  /** In words: "AGENTS.md changed", "tool list changed", "compaction at #14", "system prompt changed". */
  cause: string;
  /** The request compared against. */
  previousRequest: number;
  /** Cached share of the input, this request and the previous one (0..1). */
  share: number;
  previousShare: number;
  /** The item the prefix breaks at (its message id) and its position in this request's list. */
  itemId?: string;
  position?: number;
  /** Tokens the previous request also sent, after the change, that this one could not read from cache. */
  uncachedTokens: number;
}

type Figures = Pick<RequestUsageRecord, 'requestIndex' | 'estimatedInputTokens' | 'reportedInputTokens' | 'cacheReadTokens' | 'compactionId' | 'items'>;

/** The share of a request's input the provider read from its cache; undefined without a cache report. */
export function cachedShare(record: Pick<RequestUsageRecord, 'estimatedInputTokens' | 'reportedInputTokens' | 'cacheReadTokens'>): number | undefined {
  const input = record.reportedInputTokens ?? record.estimatedInputTokens;
  if (record.cacheReadTokens === undefined || input <= 0) return undefined;
  return Math.min(1, record.cacheReadTokens / input);
}

/** The items in wire order. Framing items are counts over the whole request, not a place in it. */
function prefixItems(items: readonly RequestItem[]): RequestItem[] {
  return items.filter((item) => item.kind !== 'framing');
}

/** Same item, same text: the provider sees the same bytes. */
function sameContent(a: RequestItem, b: RequestItem): boolean {
  return a.messageId === b.messageId && a.tokens === b.tokens && a.kind === b.kind && a.textHash === b.textHash && a.preview === b.preview;
}

function isNote(item: RequestItem): boolean {
  return item.section === 'dynamic' || item.kind === 'note';
}

function describe(item: RequestItem, current: Figures, moved: boolean): { kind: CacheMissKind; cause: string } {
  if (item.kind === 'agents-md') return { kind: 'agents-md', cause: `${item.path ?? 'AGENTS.md'} changed` };
  if (item.kind === 'tool-schema' || item.section === 'tools') return { kind: 'tools', cause: 'tool list changed' };
  if (item.kind === 'skills-index' || item.kind === 'skill') return { kind: 'skills', cause: 'skills changed' };
  if (item.section === 'system' || item.kind === 'system-section') return { kind: 'system', cause: 'system prompt changed' };
  if (isNote(item)) return { kind: 'dynamic', cause: moved ? 'context note moved' : 'context note changed' };
  if (current.compactionId) return { kind: 'compaction', cause: `compaction at #${current.requestIndex}` };
  const what = item.toolName ? `${item.toolName} result` : item.role === 'assistant' ? 'assistant message' : item.role === 'user' ? 'user message' : 'message';
  return { kind: 'message', cause: `earlier ${what} changed` };
}

/** The cached shares of two consecutive requests when the second's fell below the first's: the figures alone tell, without the items. */
export function cachedShareFell(previous: Parameters<typeof cachedShare>[0], current: Parameters<typeof cachedShare>[0]): { from: number; to: number } | undefined {
  const from = cachedShare(previous);
  const to = cachedShare(current);
  return from !== undefined && to !== undefined && to < from ? { from, to } : undefined;
}

/**
 * The cause, when this request's cached share fell below the previous request's; undefined when it
 * did not fall, either request has no cache report, an item list was not kept, or nothing the
 * previous request sent went uncached (the share fell only because new tokens were added).
 */
export function cacheMissCause(previous: Figures, current: Figures): CacheMissCause | undefined {
  const fell = cachedShareFell(previous, current);
  if (!fell) return undefined;
  const [previousShare, share] = [fell.from, fell.to];
  const before = prefixItems(previous.items);
  const now = prefixItems(current.items);
  if (before.length === 0 || now.length === 0) return undefined;
  const base = { previousRequest: previous.requestIndex, share, previousShare };
  let at = 0;
  while (at < before.length && at < now.length && sameContent(before[at], now[at])) at++;
  if (at === before.length) {
    // The whole previous request is this one's prefix: nothing Tally sent broke the cache.
    const lost = Math.max(0, (previous.cacheReadTokens ?? 0) - (current.cacheReadTokens ?? 0));
    // The cache read as much as before: the share fell only because new tokens were added.
    if (lost === 0) return undefined;
    return { ...base, kind: 'unchanged', cause: 'nothing before changed: the provider dropped its cache (expired or evicted)', uncachedTokens: lost };
  }
  const beforeIds = new Set(before.map((item) => item.messageId));
  const gone = before[at];
  const here = now[at];
  // A changed or inserted item is named by what is here now; when what is here was sent before
  // further on, the item before it was removed or moved, and is named instead.
  const culprit = here === undefined || (here.messageId !== gone.messageId && beforeIds.has(here.messageId)) ? gone : here;
  const sentBefore = new Map(before.slice(at).map((item) => [item.messageId, item]));
  const repaid = now.slice(at).filter((item) => {
    const old = sentBefore.get(item.messageId);
    return old !== undefined && sameContent(old, item);
  });
  const uncachedTokens = repaid.reduce((sum, item) => sum + item.tokens, 0);
  if (uncachedTokens === 0) return undefined;
  // The context note goes after the conversation: new messages land where it stood, and only the note is paid again.
  if (!beforeIds.has(culprit.messageId) && repaid.every(isNote)) {
    return { ...base, kind: 'dynamic', cause: 'context note moved after the new messages', itemId: repaid[0].messageId, position: now.indexOf(repaid[0]), uncachedTokens };
  }
  const twin = (culprit === gone ? now : before).find((item) => item.messageId === culprit.messageId);
  const moved = twin !== undefined && sameContent(twin, culprit);
  return { ...base, ...describe(culprit, current, moved), itemId: culprit.messageId, position: here ? at : undefined, uncachedTokens };
}
