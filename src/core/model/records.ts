/**
 * The records a session keeps besides its messages: compaction events with the items they removed,
 * and the per-request ledger (what each request carried, what the provider reported).
 */

export type CompactionTrigger = 'auto' | 'blocked' | 'manual' | 'overflow' | 'tool';

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
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  startedAt: number;
  durationMs: number;
  /** The summary text produced, when a summarizing strategy ran. */
  summary?: string;
  removed: RemovedItem[];
}

export interface RequestItem {
  messageId: string;
  role: string;
  kind: string;
  tokens: number;
  badges: Array<'truncated' | 'offloaded' | 'archived' | 'summarized' | 'pinned' | 'synthetic'>;
  toolName?: string;
  preview: string;
}

export interface ComponentTokens {
  system: number;
  skills: number;
  tools: number;
  messages: number;
  toolResults: number;
  summaries: number;
}

/** One request sent to the model: what it carried and what the provider said. */
export interface TurnUsageRecord {
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
  /** The compaction that ran right before this request, if any. */
  compactionId?: string;
  items: RequestItem[];
}
