import type { Message } from '../model/message';
import type { RequestItem } from '../model/records';
import { previewOf } from './removedItems';
import { describeImage } from '../images/imagePart';

/** Describes one message of a request for the ledger and the inspector. */
export function requestItemOf(message: Message, tokens: number): RequestItem {
  const badges: RequestItem['badges'] = [];
  if (message.meta?.truncated) badges.push('truncated');
  if (message.meta?.offloadRef && (message.kind === 'tool_result' || message.kind === 'attachment')) badges.push('offloaded');
  if (message.kind === 'tool_result_archived') badges.push('archived');
  if (message.kind === 'summary' || message.kind === 'tool_summary' || message.kind === 'episode') badges.push('summarized');
  if (message.pinned) badges.push('pinned');
  if (message.meta?.synthetic) badges.push('synthetic');
  const thinking = sentThinking(message);
  if (thinking) badges.push('thinking');
  const item: RequestItem = { messageId: message.id, role: message.role, kind: message.kind, tokens, badges, toolName: message.toolName, preview: thinking ? `${thinking} · ${previewOf(message)}` : previewOf(message) };
  // An attachment is named by what was attached (its label holds the path, so the path is not repeated).
  const attached = message.meta?.attachment;
  if (attached) item.label = `Attached: ${attached.label}`;
  // A message a slash command wrote names its command and file.
  if (message.kind === 'user' && message.meta?.source) item.source = message.meta.source;
  // The plan's own items: the todo list a compaction carried, the plan the user approved.
  // An image is an item of its own kind, named with its size and cost.
  if (message.images?.length) {
    item.kind = 'image';
    item.label = `Image: ${message.images.map(describeImage).join(', ')}`;
  }
  if (message.kind === 'plan') item.label = message.meta?.plan === 'approved' ? 'Plan: approved plan' : 'Plan: todo list (carried past compaction)';
  return item;
}

/** What an assistant message sends back of its thinking, in words ("sends back 2 thinking blocks, 1 redacted (1,204 tokens)"). */
function sentThinking(message: Message): string | undefined {
  const blocks = (message.reasoning ?? []).filter((b) => b.format === 'anthropic');
  if (!blocks.length) return undefined;
  const redacted = blocks.filter((b) => b.redactedData !== undefined).length;
  const readable = blocks.length - redacted;
  const parts = [readable ? `${readable} thinking block${readable === 1 ? '' : 's'}` : '', redacted ? `${redacted} redacted` : ''].filter(Boolean);
  const tokens = message.meta?.reasoningTokens;
  return `sends back ${parts.join(', ')}${tokens === undefined ? '' : ` (${tokens.toLocaleString('en-US')} tokens)`}`;
}
