import type { RequestItem } from '../core/model/records';

/**
 * Keys of a request's items in the list the inspector holds: an item's id, and for an id the
 * list already used (two messages with one id), the id with its repeat count. Host and webview
 * compute the same keys from the same list.
 */
export function requestItemKeys(items: readonly RequestItem[]): string[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const n = seen.get(item.messageId) ?? 0;
    seen.set(item.messageId, n + 1);
    return requestItemKey(item.messageId, n);
  });
}

/** The key of an item given how many items before it carry its id. */
export function requestItemKey(messageId: string, before: number): string {
  return before === 0 ? messageId : `${messageId}#${before}`;
}
