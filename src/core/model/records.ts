import type { Message } from './message';

/**
 * The records a session keeps besides its messages: compaction events with the items they removed,
 * and the per-request ledger (what each request carried, what the provider reported).
 */

/**
 * Why an entry of the session's history was recorded. Compactions: 'auto', 'blocked', 'manual',
 * 'overflow', 'tool'. Steps the user took on the history: 'rewind' (the conversation went back to
 * before a user message), 'fork' (this session started from another session's request) and
 * 'restore' (files went back to a checkpoint; the conversation is unchanged).
 */
export type CompactionTrigger = 'auto' | 'blocked' | 'manual' | 'overflow' | 'tool' | 'rewind' | 'fork' | 'restore';

/** What a user's step on the history ('rewind', 'fork', 'restore') did, beside its entry. */
export interface HistoryStep {
  kind: 'rewind' | 'fork' | 'restore';
  /** rewind: the user message the conversation went back to before. */
  messageId?: string;
  /** fork: the session and the request (its index) this session started from. */
  fromSessionId?: string;
  fromRequestIndex?: number;
  /** restore (and a rewind that also restored files): the checkpoint restored and the files it changed, workspace-relative. */
  checkpointId?: string;
  files?: string[];
  /** rewind: how many messages the context stopped holding (themselves, or through a summary). */
  setAside?: number;
  /** rewind: messages that came back whole, because the summary that stood for them also stood for what was set aside. */
  unsummarized?: number;
}

/**
 * An item a compaction put in the working context that the transcript does not hold (a summary, an
 * archived result's pointer, a drop marker), kept with the history so a rewind can take it apart
 * again and a fork can send it again after a later compaction replaced it.
 */
export interface AddedItem {
  message: Message;
  /** The working context's items it replaced, in their order: transcript messages or earlier added items, by id. */
  parts: string[];
}

export type RemovalReason = 'archived' | 'tool_summarized' | 'summarized' | 'episodic' | 'dropped';

/** One item that left the working context, and where it can still be found. */
export interface RemovedItem {
  messageId: string;
  reason: RemovalReason;
  strategy: string;
  kind: string;
  role: string;
  tokens: number;
  toolName?: string;
  /** Offloaded full output, when there is one. */
  offloadRef?: string;
  /** First characters, for the inspector. */
  preview: string;
}

export interface CompactionEventRecord {
  id: string;
  sessionId: string;
  trigger: CompactionTrigger;
  focus?: string;
  status: 'complete' | 'error' | 'skipped';
  error?: string;
  strategies: string[];
  /**
   * The context before and after, in the figure the status bar, the chat meter and the inspector
   * show (the provider's last report plus what changed since, once there is a report). Events
   * recorded before the estimates below were kept hold Tally's estimate here.
   */
  tokensBefore: number;
  tokensAfter: number;
  /** The same, counted by Tally's tokenizer alone. */
  estimatedTokensBefore?: number;
  estimatedTokensAfter?: number;
  messagesBefore: number;
  messagesAfter: number;
  startedAt: number;
  durationMs: number;
  /** The summary text produced, when a summarizing strategy ran (the user's text when they edited it). */
  summary?: string;
  /** Set when the user edited the summary before confirming: the summary as Tally proposed it. */
  originalSummary?: string;
  /**
   * What checking the summaries did, for the user (a model's summary completed with facts it left
   * out, or replaced by the local summary; a model that failed). Never part of the summary text.
   */
  summaryNotes?: string[];
  removed: RemovedItem[];
  /** What the compaction put in their place (records written before these were kept have none). */
  added?: AddedItem[];
  /** Set on entries that record a user's step on the history rather than a compaction. */
  step?: HistoryStep;
  /** Set on the automatic compaction after which the automatic loop stopped, because the last runs freed too little. */
  autoStopped?: AutoCompactionStop;
}

/** Why automatic compaction stopped after a run, and what was left that no compaction can take out. */
export interface AutoCompactionStop {
  /** Tokens the last run freed, and the least a run should free (a share of the effective window). */
  freedTokens: number;
  leastTokens: number;
  /** Runs in a row that freed less. */
  runs: number;
  /** Automatic compaction starts again once the context reaches this many tokens (or the user compacts). */
  resumeAtTokens: number;
  /** Tokens of what stays: pinned items, the latest turn, system prompt (skills included) and tool schemas. */
  left: { pinned: number; latestTurn: number; system: number; tools: number };
}

/**
 * What part of a request an item is. Messages keep their message kind ('user', 'tool_result', …);
 * the parts outside the conversation have their own kinds.
 */
export type PromptItemKind =
  | 'system-section' // base instructions, or a recorded run's system prompt
  | 'agents-md' // one AGENTS.md file, with its path
  | 'skills-index' // the names and descriptions of the skills
  | 'skill' // an active skill's full instructions
  | 'tool-schema' // one tool definition (deferred ones are listed with 0 tokens)
  | 'note' // a dynamic note (context status, deferred tools)
  | 'hook' // what a user's hook added to the context, with the hook's command as its source
  | 'framing'; // per-message and per-tool framing tokens, as one visible item each

/** Where an item sits in the request: the stable prefix, the tools, the dynamic part, or the conversation. */
export type ItemSection = 'system' | 'tools' | 'dynamic' | 'conversation';

/**
 * One item of a request, in prompt order: system sections, tool schemas, then the conversation with
 * the dynamic part after it, then the framing items. A request's item
 * tokens add up exactly to its `estimatedInputTokens` (see core/context/requestItems.ts).
 */
export interface RequestItem {
  /** The message id for a message; a stable id for the other items ('system:base', 'tool:read_file', …). */
  messageId: string;
  role: string;
  kind: string;
  tokens: number;
  /** `thinking`: the message carries the model's thinking back (its tokens are part of the item's). */
  badges: Array<'truncated' | 'offloaded' | 'archived' | 'summarized' | 'pinned' | 'synthetic' | 'deferred' | 'dynamic' | 'thinking'>;
  toolName?: string;
  preview: string;
  /** Which part of the request the item belongs to (absent on items recorded before there were parts). */
  section?: ItemSection;
  /** A name for the item ("Base instructions", a tool's name, "Message framing"). */
  label?: string;
  /** Where it comes from: a tool's source (built-in, session, an extension's id, an MCP server), a skill's origin. */
  source?: string;
  /** An AGENTS.md file's or a skill's path. */
  path?: string;
  /**
   * For items outside the conversation: the hash of the exact text sent. The text itself is stored
   * once per session, in the `texts` of the first usage record that carried it.
   */
  textHash?: string;
}

export interface ComponentTokens {
  system: number;
  skills: number;
  tools: number;
  /** What the user's hooks added to the request (absent when none did, and on records written before hooks were counted apart). */
  hooks?: number;
  messages: number;
  toolResults: number;
  summaries: number;
  /** The plan's own items: the todo list carried past a compaction, an approved plan. Absent on records written before it was counted apart (then in messages). */
  plan?: number;
}

/** One request sent to the model: what it carried and what the provider said. */
export interface RequestUsageRecord {
  id: string;
  sessionId: string;
  requestIndex: number;
  createdAt: number;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  components: ComponentTokens;
  estimatedInputTokens: number;
  reportedInputTokens?: number;
  reportedOutputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Output tokens the model spent reasoning (part of `reportedOutputTokens`); absent on records written before they were kept. */
  reasoningTokens?: number;
  /** The compaction that ran right before this request, if any. */
  compactionId?: string;
  items: RequestItem[];
  /** How many items the request carried, kept beside the (change-encoded) list so a listing need not rebuild it. */
  itemCount?: number;
  /** The texts of prompt items (by `textHash`) this request was the first of its session to carry. */
  texts?: Record<string, string>;
}
