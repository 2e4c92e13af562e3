import type { SubagentProgress } from '../../core/agent/events';
import { requestRead } from '../../core/agent/subagents/sparedFigures';
import type { ToolCall } from '../../core/model/message';
import type { ChatSubagentView } from '../../protocol/chat';

/** A delegate call the model just made: its subagent waits for a slot until it reports `started`. */
export function waitingSubagent(call: Pick<ToolCall, 'arguments'>): ChatSubagentView {
  let args: { task?: unknown; agent?: unknown } = {};
  try {
    args = (JSON.parse(call.arguments) as typeof args) ?? {};
  } catch {
    // arguments that are not JSON: the subagent's own `started` says the task
  }
  return {
    ...(typeof args.agent === 'string' ? { agent: args.agent } : {}),
    task: typeof args.task === 'string' ? args.task : '',
    phase: 'waiting',
    requests: 0,
    tokens: 0,
    read: 0,
    compactions: 0,
  };
}

const OUTCOMES: Partial<Record<Extract<SubagentProgress, { kind: 'ended' }>['stopReason'], string>> = {
  end_turn: 'finished',
  request_cap: 'stopped at its request cap',
  token_cap: 'stopped at its token cap',
  max_tokens: 'stopped at the output limit',
  refusal: 'the model declined',
  cancelled: 'cancelled',
  blocked: 'blocked',
  error: 'failed',
};

/** One progress event folded into the subagent's record; changes only the record (events can be many). */
export function foldSubagent(view: ChatSubagentView, progress: SubagentProgress): void {
  if (progress.agent) view.agent = progress.agent;
  switch (progress.kind) {
    case 'started':
      view.phase = 'working';
      view.task = progress.task;
      break;
    case 'request':
      view.requests++;
      break;
    case 'usage':
      view.tokens += requestRead(progress.record) + (progress.record.reportedOutputTokens ?? 0);
      view.read += requestRead(progress.record);
      break;
    case 'compaction':
      if (progress.event.type === 'complete' && !progress.event.dryRun) view.compactions++;
      break;
    case 'tool_call':
      view.lastTool = progress.toolName;
      break;
    case 'ended':
      view.phase = 'ended';
      view.requests = progress.requests;
      view.tokens = progress.tokens;
      view.outcome = progress.error ?? OUTCOMES[progress.stopReason] ?? progress.stopReason;
      break;
  }
}
