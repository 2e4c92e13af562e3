import type { ImageSource } from '../images/imageMessages';
import type { Denial, ToolCall } from '../model/message';
import type { AgentEvent } from './events';
import type { ApprovalDecision, ApprovalRequest } from '../tools/types';

export interface ToolRunOptions {
  signal: AbortSignal;
  onApprovalNeeded(request: ApprovalRequest): void;
  onApprovalResolved(decision: ApprovalDecision): void;
  /** The loop's own event stream, for tools that report progress (subagents). */
  onEvent?(event: AgentEvent): void;
}

export interface ToolRunResult {
  output: string | Uint8Array;
  isError?: boolean;
  /** The run stopped because the turn was cancelled. */
  cancelled?: boolean;
  /** The user said no on the approval card, or a hook refused the call (which one, and why): the tool did not run. */
  denied?: Denial;
  /** Images the tool read (read_file on an image): sent after the response's results. */
  images?: ImageSource[];
}

/** Executes one tool call; never throws for the model's mistakes (they become error results). */
export interface ToolRunner {
  run(call: ToolCall, options: ToolRunOptions): Promise<ToolRunResult>;
  /** Whether calls of this tool in one response may run together (the loop starts them at once). */
  concurrent?(name: string): boolean;
}
