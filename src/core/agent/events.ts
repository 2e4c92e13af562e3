import type { CompactionEvent } from '../compaction/events';
import type { Message, ToolCall } from '../model/message';
import type { RequestUsageRecord } from '../model/records';
import type { ApprovalRequest } from '../tools/types';

/** What the agent loop reports while it works; the chat panel and the inspector render these. */
export type AgentEvent =
  | { type: 'turn_start'; userMessageId: string }
  | { type: 'request_start'; requestIndex: number; usedTokens: number; effectiveWindow: number; percent: number }
  | { type: 'text_delta'; text: string }
  /** Readable thinking as it streams (kept on the assistant message once the response completes). */
  | { type: 'reasoning_delta'; text: string }
  | { type: 'assistant_message'; message: Message }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'approval_needed'; request: ApprovalRequest }
  | { type: 'approval_resolved'; callId: string; decision: 'approved' | 'denied' }
  | { type: 'tool_result'; callId: string; message: Message }
  | { type: 'compaction'; event: CompactionEvent }
  | { type: 'usage'; record: RequestUsageRecord }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  /**
   * `action: 'continue'`: the chat offers to let the model carry on (an answer cut at the output limit);
   * `'compact'`: the context is held at the hard block, the chat offers Compact now and Send anyway.
   */
  | { type: 'notice'; message: string; action?: 'continue' | 'compact' }
  | { type: 'error'; message: string; kind: string }
  | { type: 'turn_end'; stopReason: TurnStopReason }
  | { type: 'subagent'; progress: SubagentProgress };

/** A subagent's progress, as the parent's events carry it: `callId` is the parent's delegate call, `sessionId` the subagent's own session. */
export type SubagentProgress = { callId: string; sessionId: string; agent?: string } & (
  | { kind: 'started'; task: string }
  | { kind: 'request'; requestIndex: number; usedTokens: number; effectiveWindow: number; percent: number }
  | { kind: 'usage'; record: RequestUsageRecord }
  | { kind: 'compaction'; event: CompactionEvent }
  | { kind: 'tool_call'; toolName: string; toolCallId: string }
  | { kind: 'ended'; stopReason: TurnStopReason | 'request_cap' | 'token_cap'; requests: number; tokens: number; error?: string }
);

/**
 * `refusal`: the model declined to answer; the turn ends cleanly. `held`: the context reached the
 * hard block and automatic compaction is off (or stopped by the loop guard): nothing was compacted,
 * and the user decides.
 */
export type TurnStopReason = 'end_turn' | 'max_tokens' | 'refusal' | 'cancelled' | 'error' | 'max_steps' | 'blocked' | 'held';

export type AgentListener = (event: AgentEvent) => void;
