/**
 * Messages between the extension host and the chat panel webview.
 * The host owns the conversation; the webview renders what it is sent and sends intents.
 */
import type { WindowFigures } from '../core/accounting/windowFigures';
import type { CompactionEventRecord } from '../core/model/records';
import { compactionHead, type CompactionHead } from '../core/model/compactionHead';
import type { AttachCompletion, AttachTarget, ChatAttachmentView, ComposerCost, ImageToDownscale } from './attachments';
import type { ImageMediaType } from '../core/images/imagePart';
import type { ChatCommandItem } from './commands';
import type { ListPatch } from './listPatch';
import type { MeterCounting } from './meterCounting';

export interface ChatToolCallView {
  callId: string;
  name: string;
  arguments: string;
  status: 'running' | 'awaiting_approval' | 'done' | 'error' | 'denied' | 'aborted';
  /** Denied by a hook of the user's, not by the user: the hook (its command's first line) and its reason. */
  deniedBy?: { hook: string; reason: string };
  /** The result as a person reads it: the output (or its stored preview), without the lines addressed to the model. */
  resultPreview?: string;
  truncated?: boolean;
  offloadRef?: string;
  /** The output was stored whole: its size, shown as "N lines stored · Open" (the ref id stays in the inspector). */
  stored?: { lines: number; bytes: number };
  /**
   * `allowForSession`: what "Allow <…> for this session" covers (a tool's name, or a command's allowance);
   * `runs`: what a command runs besides its line (a package's scripts); `noAllowance`: why a command card offers none;
   * `sandbox`: whether a command runs in the sandbox and what it may touch there, or why it runs without one;
   * `approveLabel`: what the Approve button says when it does something more specific ("Run outside the sandbox").
   */
  approval?: {
    title: string;
    detail?: string;
    kind: 'command' | 'edit' | 'read' | 'other';
    allowForSession?: string;
    runs?: string;
    noAllowance?: string;
    sandbox?: { sandboxed: boolean; text: string; detail?: string };
    approveLabel?: string;
    /** A subagent asks, on its delegate card: its name, and the id its approval is answered by (not the card's call id). */
    subagent?: string;
    answerId?: string;
  };
  /** The subagent a running delegate call started, as far as the turn has reported it. */
  subagent?: ChatSubagentView;
}

/**
 * A running subagent: `waiting` until a slot frees, `working` once it started, `ended` with
 * `outcome` (how it stopped, in words). `requests` and `tokens` are what it used so far.
 */
export interface ChatSubagentView {
  agent?: string;
  task: string;
  phase: 'waiting' | 'working' | 'ended';
  requests: number;
  /** Input plus output tokens (what its token cap counts). */
  tokens: number;
  /** Input tokens over its requests: what it read (sparedFigures.ts; the inspector's "read" is the same sum). */
  read: number;
  compactions: number;
  lastTool?: string;
  outcome?: string;
}

/** What one turn cost, from the host's usage records (the inspector shows the same numbers). */
export interface ChatTurnUsage {
  requests: number;
  /** Input tokens of the turn's last request: how big the context was. */
  lastRequestTokens: number;
  /** Input and output tokens over all the turn's requests. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens the provider reported as read from its cache, when it reported any. */
  cachedTokens?: number;
  /** Input tokens the provider reported as written to its cache, when it reported any. */
  cacheWriteTokens?: number;
  /** Output tokens spent reasoning (part of outputTokens), when the provider reported any. */
  reasoningTokens?: number;
  /** In US dollars, when the model's price is known. */
  cost?: number;
  /** The turn's subagents' share, included in the figures above (requests, tokens, cached, cost). */
  subagents?: { requests: number; inputTokens: number; outputTokens: number; cost?: number };
}

/** The model's thinking before an answer: shown collapsed, with its size. */
export interface ChatThinking {
  /** The readable thinking ('' when all of it came redacted). */
  text: string;
  /** Tokens of the readable thinking, as the host counted them. */
  tokens?: number;
  /** Blocks the provider sent encrypted (redacted thinking): kept and sent back, not readable. */
  redacted: number;
  /** Characters of thinking past the limit for one reply: read, not kept. */
  notKeptChars?: number;
  /** Still streaming. */
  streaming?: boolean;
}

/**
 * A compaction as the chat's notice shows it: its figures and summary, and how many items it
 * removed; the removed items themselves (thousands after a large compaction) are the inspector's.
 */
export type ChatCompactionRecord = Omit<CompactionEventRecord, 'removed' | 'added'> & { removedCount: number };

/** What the chat shows of an entry: the items a compaction added stay on the host (they are for rewinds and forks). */
export function chatCompactionRecord(record: CompactionEventRecord | CompactionHead): ChatCompactionRecord {
  const { removedFirst: _first, removedTokens: _tokens, ...rest } = compactionHead(record);
  return rest;
}

export type ChatEntry =
  /** `pending`: kept while no model is configured; it is sent once one is chosen. `tokens`: the host's count. */
  | { kind: 'user'; id: string; text: string; tokens?: number; pending?: boolean; attachments?: ChatSentAttachment[]; setAside?: boolean }
  /** `setAside` (user and assistant): a rewind took the conversation back to before it; the model no longer sees it. */
  /** `plan`: the answer that ended a plan-mode turn, shown as the plan's card. */
  | { kind: 'assistant'; id: string; text: string; streaming?: boolean; toolCalls: ChatToolCallView[]; tokens?: number; thinking?: ChatThinking; setAside?: boolean; plan?: ChatPlanView }
  /** `headline`: what a user's step on the history did, in words ("Rewound to before “fix the test” · 4 messages set aside"). */
  | { kind: 'compaction'; id: string; record: ChatCompactionRecord; headline?: string }
  /** `busy`: work still running (a compaction); `action`: the button the notice offers (`continue` sends "Continue"). */
  | { kind: 'notice'; id: string; text: string; level: 'info' | 'warning' | 'error'; busy?: boolean; action?: 'retry' | 'selectModel' | 'continue' | 'compact' }
  | { kind: 'usage'; id: string; usage: ChatTurnUsage }
  /** The agent's todo list as it is now: one card, updated in place by each update_todos call. */
  | { kind: 'todos'; id: string; items: ChatTodoItem[]; open: number };

/**
 * A plan the agent proposed at the end of a plan-mode turn: `proposed` (Edit, Approve, Discard),
 * `approved` (the next turn carries `text` out), `discarded`, or `passed` (the user sent another
 * message instead). `text`: the plan as the user last edited it (`edited`) or as proposed.
 */
export interface ChatPlanView {
  status: 'proposed' | 'approved' | 'discarded' | 'passed';
  text: string;
  edited?: boolean;
}

/** One step of the agent's todo list. */
export interface ChatTodoItem {
  text: string;
  status: 'pending' | 'in_progress' | 'done';
}

/** An attachment as sent with a user message: a chip on the message. */
export interface ChatSentAttachment {
  id: string;
  kind: ChatAttachmentView['kind'];
  label: string;
  tokens?: number;
  /** Stored whole: `lines` in all, `sentLines` sent. */
  stored?: { lines: number; sentLines: number };
}

/** The context meter shows the window figures every surface shares (see core/accounting/windowFigures). */
export type ChatMeter = WindowFigures;

export interface ChatState {
  sessionId?: string;
  sessionTitle?: string;
  entries: ChatEntry[];
  busy: boolean;
  meter?: ChatMeter;
  /** Set instead of `meter` while the session's context is being read (its newest messages show already). */
  counting?: MeterCounting;
  model?: { id: string; label: string };
  sessions: Array<{ id: string; title: string; updatedAt: number }>;
  /** Shown when no model is configured or the workspace is untrusted. */
  banner?: string;
  /** Older messages exist that the host has not read yet ("Show earlier" asks for them). */
  earlierUnloaded?: boolean;
  /** The turns that changed files, by their user message: what "Restore files" offers on them. */
  turnFiles?: ChatTurnFiles[];
  /** A replayed recording (the demo): read-only, so its messages offer no Rewind and no Restore files. */
  replay?: boolean;
  /** The next message runs in plan mode: the agent only reads and searches, and ends with a plan. */
  planMode?: boolean;
}

/** What a turn changed in the workspace, from the host's checkpoints. */
export interface ChatTurnFiles {
  /** The user message that started the turn. */
  messageId: string;
  /** Files the turn edited, created or deleted. */
  files: number;
  /** Why some of them cannot be restored (checkpoint storage failed, a bound was reached), as a sentence. */
  problem?: string;
  /** When they were put back (epoch ms): a restore to before this turn or an earlier one, with no file changed by a turn since. */
  restoredAt?: number;
}

/** What the chat shows above its entries, but the window's lists (sessions, the turns' files). */
export type ChatHeader = Omit<ChatState, 'entries' | 'sessions' | 'turnFiles'>;

/** A header in an update: the window's lists travel only when they changed (absent: as they were). */
export type ChatHeaderUpdate = ChatHeader & Partial<Pick<ChatState, 'sessions' | 'turnFiles'>>;

/** An entry's key in the list: ids are unique within a kind. */
export function chatEntryKey(entry: ChatEntry): string {
  return `${entry.kind}:${entry.id}`;
}

/** A change to the entry list the webview holds (see listPatch.ts). */
export type ChatEntriesPatch = ListPatch<ChatEntry>;

/**
 * What the host tells the chat: the whole state first, then each change as it happens. An update
 * carries what changed: the header (absent: as it was) and the entries as a change of those held
 * (absent: as they were); a delta is text (or, with `thinking`, thinking) streamed onto an entry.
 */
export type HostToChat =
  /** The whole state: sent first, when the webview (re)loads and when the session changes. */
  | { type: 'state'; state: ChatState }
  | { type: 'update'; state?: ChatHeaderUpdate; patch?: ChatEntriesPatch }
  | { type: 'delta'; entryId: string; text: string; thinking?: boolean }
  /** The answer to an `attachQuery`: the lines to offer, and what is not offered here and why. */
  | { type: 'completions'; queryId: number; items: AttachCompletion[] }
  /** The chips above the input and what the message will cost; `restore`: a send failed, the text goes back in the input. */
  | { type: 'composer'; attachments: ChatAttachmentView[]; cost?: ComposerCost; restore?: string }
  /** An image chip's bytes to scale down (the user asked for its smaller size); the webview answers with `downscaledImage`. */
  | ({ type: 'imageToDownscale' } & ImageToDownscale)
  /** Puts a message's text back in the composer to edit (after a rewind). */
  | { type: 'editText'; text: string }
  /** The answer to a `commandQuery`: the commands whose names start with what was typed after `/`. */
  | { type: 'commandList'; queryId: number; items: ChatCommandItem[] };

export type ChatToHost =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'cancel' }
  | { type: 'approval'; callId: string; approved: boolean; forSession?: boolean }
  | { type: 'newSession' }
  | { type: 'resumeSession'; sessionId: string }
  | { type: 'selectModel' }
  /** Opens the demo replay (offered while no model is chosen). */
  | { type: 'openDemo' }
  /** Drops the message kept while no model is configured, so choosing a model later does not send it. */
  | { type: 'discardPending' }
  | { type: 'openResult'; refId: string }
  | { type: 'openInspector' }
  /** Load the session's older messages (the chat opens with the recent part). */
  | { type: 'showEarlier' }
  /** Re-sends the user message of the turn that failed. */
  | { type: 'retry' }
  /** Opens the search over past sessions (Tally: Search Sessions). */
  | { type: 'searchSessions' }
  /** A turn held at the hard block: compact by hand, then go on with it. */
  | { type: 'compactAndContinue' }
  /** A turn held at the hard block: send its request uncompacted (the provider may refuse it). */
  | { type: 'sendAnyway' }
  | { type: 'copyCode'; code: string }
  | { type: 'insertCode'; code: string }
  /** http, https or mailto only; the host opens it outside the webview. */
  | { type: 'openLink'; url: string }
  /** The composer's text after `#` or `@`: the host answers with `completions`. */
  | { type: 'attachQuery'; queryId: number; query: string }
  | { type: 'attach'; target: AttachTarget }
  | { type: 'removeAttachment'; id: string }
  /** Opens the exact text a chip will send. */
  | { type: 'openAttachment'; id: string }
  /** Send this image chip at its smaller size: the host answers with `imageToDownscale`. */
  | { type: 'downscaleImage'; id: string }
  /** The image chip's bytes scaled down to the size the host asked for (the host checks them before using them). */
  | { type: 'downscaledImage'; id: string; mediaType: ImageMediaType; data: string }
  /** The text being written, so the host can say what the message will cost. */
  | { type: 'draft'; text: string }
  /** Files dropped on the chat: each must be a file inside the workspace. */
  | { type: 'dropUris'; uris: string[] }
  /** Puts the files back to before this user message's turn (after a diff and a confirmation on the host). */
  | { type: 'restoreFiles'; messageId: string }
  /** Takes the conversation back to before this user message (the host confirms, and offers to restore files too). */
  | { type: 'rewind'; messageId: string }
  /** The composer's text after a `/` that starts the message: the host answers with `commandList`. */
  | { type: 'commandQuery'; queryId: number; query: string }
  /** Switches plan mode for the next message. */
  | { type: 'setPlanMode'; on: boolean }
  /** Saves the user's edit of the plan a message proposed (still to approve). */
  | { type: 'editPlan'; messageId: string; text: string }
  /** Approves the plan a message proposed (with `text`, as edited in the card): the agent carries it out with all tools. */
  | { type: 'approvePlan'; messageId: string; text?: string }
  /** Discards the plan a message proposed (plan mode stays on). */
  | { type: 'discardPlan'; messageId: string };
