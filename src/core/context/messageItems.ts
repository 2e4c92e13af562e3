import type { RequestItem, RequestUsageRecord } from '../model/records';

/** Kinds of items that are parts of the prompt, not messages (a record from before items had sections lists them with none). */
const PROMPT_PART_KINDS = new Set(['system', 'system-section', 'agents-md', 'skills-index', 'skill', 'tool-schema', 'framing']);

/**
 * Whether a request's item is one of the messages it carried: in the conversation (items recorded
 * before there were sections are), and not a prompt part or the framing. The dynamic note has a
 * section of its own. Only types are imported here: the webviews count a request's messages with it.
 */
export function isMessageItem(item: Pick<RequestItem, 'section' | 'kind'>): boolean {
  return (!item.section || item.section === 'conversation') && !PROMPT_PART_KINDS.has(item.kind);
}

/** The messages a request carried, item by item. */
export function conversationItemsOf(record: Pick<RequestUsageRecord, 'items'>): RequestItem[] {
  return record.items.filter(isMessageItem);
}
