import type { Message } from '../model/message';
import type { RequestItem } from '../model/records';
import { previewOf } from './removedItems';

/** Describes one message of a request for the ledger and the inspector. */
export function requestItemOf(message: Message, tokens: number): RequestItem {
  const badges: RequestItem['badges'] = [];
  if (message.meta?.truncated) badges.push('truncated');
  if (message.meta?.offloadRef && message.kind === 'tool_result') badges.push('offloaded');
  if (message.kind === 'tool_result_archived') badges.push('archived');
  if (message.kind === 'summary' || message.kind === 'tool_summary' || message.kind === 'episode') badges.push('summarized');
  if (message.pinned) badges.push('pinned');
  if (message.meta?.synthetic) badges.push('synthetic');
  return { messageId: message.id, role: message.role, kind: message.kind, tokens, badges, toolName: message.toolName, preview: previewOf(message) };
}
