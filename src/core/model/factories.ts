import { newId } from './ids';
import type { AttachmentInfo, Denial, Message, MessageMeta, ToolCall } from './message';

/**
 * The one place messages are made. Every factory gives a fresh id (unless one is passed) and
 * createdAt 0 unless a time is passed: the session stamps the real time when it records them.
 */
interface Made {
  id?: string;
  createdAt?: number;
}

export function userMessage(content: string, made: Made = {}): Message {
  return { id: made.id ?? newId('m'), role: 'user', kind: 'user', content, agentVisible: true, userVisible: true, createdAt: made.createdAt ?? 0 };
}

/** Something the user attached to their next message: user content, recorded right before that message. */
export function attachmentMessage(info: AttachmentInfo, content: string, made: Made & { meta?: MessageMeta } = {}): Message {
  return { id: made.id ?? newId('m'), role: 'user', kind: 'attachment', content, agentVisible: true, userVisible: true, createdAt: made.createdAt ?? 0, meta: { ...made.meta, attachment: { ...info } } };
}

export function assistantMessage(content: string, toolCalls: readonly ToolCall[] = [], made: Made = {}): Message {
  return {
    id: made.id ?? newId('m'),
    role: 'assistant',
    kind: 'assistant',
    content,
    toolCalls: toolCalls.length ? [...toolCalls] : undefined,
    agentVisible: true,
    userVisible: true,
    createdAt: made.createdAt ?? 0,
  };
}

/** A tool's output as the model sees it; `content` is filled by the recorder (maybe truncated or offloaded). */
export function toolResultMessage(call: Pick<ToolCall, 'id' | 'name'>, content: string, options: Made & { isError?: boolean; denied?: Denial; meta?: MessageMeta } = {}): Message {
  return {
    id: options.id ?? newId('m'),
    role: 'tool',
    kind: 'tool_result',
    content,
    toolCallId: call.id,
    toolName: call.name,
    agentVisible: true,
    userVisible: true,
    createdAt: options.createdAt ?? 0,
    meta: { ...(options.isError ? { isError: true } : {}), ...(options.denied ? { denied: true } : {}), ...(typeof options.denied === 'object' ? { deniedByHook: options.denied } : {}), ...options.meta },
  };
}

/** The synthetic output of a tool call that never returned one (interrupted, cancelled, cut by a crash). */
export function abortedToolResult(call: Pick<ToolCall, 'id' | 'name'>, reason: string, made: Made = {}): Message {
  return {
    id: made.id ?? newId('m'),
    role: 'tool',
    kind: 'aborted',
    content: `[aborted: ${reason}]`,
    toolCallId: call.id,
    toolName: call.name,
    agentVisible: true,
    userVisible: true,
    createdAt: made.createdAt ?? 0,
    meta: { synthetic: true, isError: true },
  };
}

/**
 * A summary standing in for older messages (`replaces`: the transcript ids it covers): a checkpoint
 * ('summary'), a digest of tool calls ('tool_summary') or an episode of finished work ('episode').
 */
export function summaryMessage(content: string, replaces: string[], made: Made & { kind?: 'summary' | 'tool_summary' | 'episode' } = {}): Message {
  const kind = made.kind ?? 'summary';
  return {
    id: made.id ?? newId('m'),
    role: kind === 'episode' ? 'assistant' : 'user',
    kind,
    content,
    agentVisible: true,
    userVisible: true,
    createdAt: made.createdAt ?? 0,
    meta: { synthetic: true, replaces },
  };
}

/** Instructions re-injected after a checkpoint (AGENTS.md and the like), hidden from the chat. */
export function instructionsMessage(content: string, made: Made = {}): Message {
  return { id: made.id ?? newId('m'), role: 'user', kind: 'instructions', content, agentVisible: true, userVisible: false, createdAt: made.createdAt ?? 0, meta: { synthetic: true } };
}

/**
 * The plan's own item (owner "plan"): the todo list carried past a compaction, or a plan the user
 * approved (pinned, so no compaction removes it; `planOf`: the assistant message that proposed it).
 */
export function planMessage(content: string, plan: 'todos' | 'approved', made: Made & { placedAt?: number; planOf?: string } = {}): Message {
  return {
    id: made.id ?? newId('m'),
    role: 'user',
    kind: 'plan',
    content,
    agentVisible: true,
    userVisible: false,
    createdAt: made.createdAt ?? 0,
    ...(plan === 'approved' ? { pinned: true } : {}),
    meta: { synthetic: true, plan, ...(made.placedAt !== undefined ? { placedAt: made.placedAt } : {}), ...(made.planOf !== undefined ? { planOf: made.planOf } : {}) },
  };
}

/** What the user did to a proposed plan without approving it: edited its text, or discarded it. A record for the chat's plan card; the model never reads it. */
export function planDecisionMessage(planOf: string, decision: 'edited' | 'discarded', content: string, made: Made = {}): Message {
  return { id: made.id ?? newId('m'), role: 'user', kind: 'plan', content, agentVisible: false, userVisible: false, createdAt: made.createdAt ?? 0, meta: { synthetic: true, plan: decision, planOf } };
}

/** An old tool output replaced by a short pointer; the original stays in the transcript. */
export function archivedToolResult(original: Message, content: string, replaces: string[], made: Made = {}): Message {
  return { ...original, id: made.id ?? newId('m'), kind: 'tool_result_archived', content, meta: { ...original.meta, replaces, synthetic: true } };
}

/** A note the model reads but the user does not see in the chat (context status, tail notes). */
export function noteMessage(content: string, made: Made = {}): Message {
  return { id: made.id ?? newId('m'), role: 'user', kind: 'note', content, agentVisible: true, userVisible: false, createdAt: made.createdAt ?? 0, meta: { synthetic: true } };
}

/** A request the user does not see in the chat (a one-off prompt to a model, e.g. for a summary). */
export function hiddenUserMessage(content: string, made: Made = {}): Message {
  return { ...userMessage(content, made), userVisible: false };
}
