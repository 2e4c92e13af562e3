/**
 * The conversation model shared by every part of Tally's core.
 *
 * A session has two views of its history:
 *  - the transcript: every message ever recorded, append-only, kept for audit and export, so nothing compaction removes is lost;
 *  - the working context: what the agent currently sees. Compaction rewrites the working
 *    context (archiving, summarizing, dropping) but never the transcript.
 */

import type { ImagePart } from '../images/imagePart';

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** What a message is, beyond its role; decides visibility and how it is counted. */
export type MessageKind =
  | 'user' // a user's own message
  | 'attachment' // something the user attached to their next message (a file, a selection, problems…), sent as user content right before it
  | 'assistant' // model output, possibly with tool calls
  | 'tool_result' // a tool's output as the model sees it (maybe truncated / offloaded)
  | 'tool_result_archived' // an old tool result replaced by a pointer (masking strategy)
  | 'tool_summary' // a summary standing in for older tool calls and results
  | 'summary' // a checkpoint summary standing in for older messages
  | 'episode' // an episodic summary of completed goal batches
  | 'instructions' // instructions re-injected after compaction (AGENTS.md etc.)
  | 'plan' // the agent's todo list carried past a compaction, or the plan the user approved
  | 'note' // a system note (context status, cut marker)
  | 'aborted'; // synthetic output for a tool call that never got one (interrupted or cancelled)

export interface ToolCall {
  /** The provider's call id (Anthropic tool_use id, OpenAI tool_call id). */
  id: string;
  name: string;
  /** The JSON arguments as raw text, exactly as the model produced them (may be invalid JSON). */
  arguments: string;
}

/**
 * Reasoning a model produced before (or between) its answer and its tool calls: Anthropic's
 * thinking and redacted thinking, OpenAI Responses' reasoning items, the `reasoning_content` of
 * OpenAI-compatible servers. Kept on the assistant message, in the order the provider produced
 * them, so they can be sent back exactly as the provider requires.
 */
export interface ReasoningBlock {
  /** The wire format that produced it: a block is sent back only to that format. */
  format: 'anthropic' | 'openai-responses' | 'openai-chat';
  /** The readable thinking or reasoning summary; '' when the provider sent it redacted or encrypted only. */
  text: string;
  /** Anthropic thinking: the signature to return with the block, unchanged. */
  signature?: string;
  /** Anthropic redacted_thinking: the opaque data to return, unchanged. */
  redactedData?: string;
  /** OpenAI Responses: the reasoning item's id. */
  itemId?: string;
  /** OpenAI Responses: the encrypted reasoning to return with the next request (store: false). */
  encryptedContent?: string;
  /** Characters of readable thinking past Tally's limit for one reply: read, not kept (unsigned thinking only). */
  cutChars?: number;
}

/** How a tool result was shortened when it was recorded: head+tail truncation, or offloaded to the blob store. */
export interface TruncationInfo {
  originalBytes: number;
  originalLines: number;
  keptBytes: number;
  omittedLines: number;
  omittedBytes: number;
}

/** What an attachment message holds and where it came from. */
export interface AttachmentInfo {
  kind: 'file' | 'folder' | 'selection' | 'problems' | 'diff' | 'terminal' | 'resource' | 'image' | 'url';
  /** What the chip and the inspector call it ("src/app.ts", "app.ts:12-40", "Problems in app.ts"). */
  label: string;
  /** Workspace-relative path of the file or folder, when there is one. */
  path?: string;
  /** An MCP resource: the server it came from and its URI; a web page: its address. */
  server?: string;
  uri?: string;
  /** A selection's lines, 1-based and inclusive. */
  startLine?: number;
  endLine?: number;
}

/** A call a user's hook refused before it ran: the hook's command and the reason it gave. */
export interface HookDenial {
  hook: string;
  reason: string;
}

/** Denied by the user on the card (`true`), or by a hook. */
export type Denial = boolean | HookDenial;

export interface MessageMeta {
  truncated?: TruncationInfo;
  /** Offloaded full output: the ref id in tool_result_blobs, readable again with read_result. */
  offloadRef?: string;
  /** For archived / summarized items: ids of the transcript messages they stand in for. */
  replaces?: string[];
  /** The compaction event that produced this message. */
  compactionId?: string;
  /**
   * Where an item a compaction put in stands among the messages' times, when its own time does not
   * say (a checkpoint placed after the user messages it kept): between the items around it. A
   * rewind that takes a summary apart puts the messages back in this order (see placeOf).
   */
  placedAt?: number;
  /** A message Tally created itself (aborted output, notes, summaries). */
  synthetic?: boolean;
  /** Imported transcripts: number of images the recorded message had (counted with a fixed per-image estimate). */
  images?: number;
  /** Tool result reported an error. */
  isError?: boolean;
  /** The user refused the call on its approval card, or a hook did, so the tool did not run. */
  denied?: boolean;
  /** A hook refused the call (not the user): its command and its reason. */
  deniedByHook?: HookDenial;
  /** Free-form provenance for imported transcripts. */
  source?: string;
  /** Attachment messages: what was attached. */
  attachment?: AttachmentInfo;
  /**
   * Plan items: the todo list a compaction carried, or the plan the user approved (both read by the
   * model); the user's edit of a proposed plan, or that they discarded it (records only, not sent).
   */
  plan?: 'todos' | 'approved' | 'edited' | 'discarded';
  /** A plan's approval, edit or discarding: the assistant message that proposed the plan. */
  planOf?: string;
  /** User messages: the turn ran in plan mode (read and search only, ending with a plan). */
  mode?: 'plan';
  /** Assistant messages: tokens of the thinking they send back to the model, counted when recorded. */
  reasoningTokens?: number;
  /** Assistant messages: tokens of their readable thinking whatever its format (sent back or not), counted when recorded (the chat shows it). */
  thinkingTokens?: number;
}

export interface Message {
  /** Stable unique id (also the transcript key). */
  id: string;
  role: Role;
  kind: MessageKind;
  content: string;
  /** Assistant messages: the tool calls it made, in order. */
  toolCalls?: ToolCall[];
  /** Images the message carries (user attachments, an image a tool read), sent after its text in each provider's own form. */
  images?: ImagePart[];
  /** Assistant messages: the model's thinking or reasoning, in the order it was produced. */
  reasoning?: ReasoningBlock[];
  /** Tool messages: the call this answers. */
  toolCallId?: string;
  /** Tool messages: the tool's name (for display and pointers). */
  toolName?: string;
  /** Sent to the model? Hidden messages are neither sent nor counted. */
  agentVisible: boolean;
  /** Shown in the chat UI? */
  userVisible: boolean;
  /** Pinned items are never archived, summarized or dropped by compaction (the user pins them in the inspector). */
  pinned?: boolean;
  /**
   * The token count stored with the row and the encoding it was counted with. Read once on load
   * (accounting/messageTokens); the live count is memoized outside the message.
   */
  tokens?: number;
  tokenEncoding?: string;
  createdAt: number;
  meta?: MessageMeta;
}

/** A call group: an assistant message with tool calls and the tool messages answering them. */
export interface CallGroup {
  start: number; // index of the assistant message
  end: number; // index one past the last tool message of the group
}

/** Where a working context's item stands in time: its own time, unless a compaction placed it (see MessageMeta.placedAt). */
export function placeOf(message: Message): number {
  return message.meta?.placedAt ?? message.createdAt;
}

/** Transcript order: by creation time, then by id (messages created in the same millisecond). */
export function compareTranscriptOrder(a: Message, b: Message): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
