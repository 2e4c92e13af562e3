import type { CompactionEvent } from '../compaction/events';
import type { Message, ToolCall } from '../model/message';
import type { TurnUsageRecord } from '../model/records';
import type { ApprovalRequest } from '../tools/types';

/** What the agent loop reports while it works; the chat panel and the inspector render these. */
export type AgentEvent =
  | { type: 'turn_start'; userMessageId: string }
  | { type: 'request_start'; requestIndex: number; usedTokens: number; effectiveWindow: number; percent: number }
  | { type: 'text_delta'; text: string }
  /** Readable thinking or reasoning as the model streams it. */
  | { type: 'reasoning_delta'; text: string }
  | { type: 'assistant_message'; message: Message }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'approval_needed'; request: ApprovalRequest }
  | { type: 'approval_resolved'; callId: string; decision: 'approved' | 'denied' }
  | { type: 'tool_result'; callId: string; message: Message }
  | { type: 'compaction'; event: CompactionEvent }
  | { type: 'usage'; record: TurnUsageRecord }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  | { type: 'notice'; message: string }
  | { type: 'error'; message: string; kind: string }
  | { type: 'turn_end'; stopReason: TurnStopReason };

export type TurnStopReason = 'end_turn' | 'max_tokens' | 'cancelled' | 'error' | 'max_steps' | 'blocked';

export type AgentListener = (event: AgentEvent) => void;
