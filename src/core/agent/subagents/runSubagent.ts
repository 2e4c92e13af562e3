import type { InstructionPart } from '../../prompt/promptSections';
import { truncateOutput } from '../../toolOutput/truncate';
import type { ToolContext, ToolOutput } from '../../tools/types';
import type { AgentEvent, SubagentProgress, TurnStopReason } from '../events';
import type { DelegateTool, SubagentEnvironment } from './delegateTool';
import type { NamedAgent } from './namedAgents';
import { subagentOrigin } from './sessionLink';
import { subagentCallId } from './subagentApprovals';
import type { TurnSubagentSpend } from './turnBudget';

export interface SubagentRun {
  env: SubagentEnvironment;
  task: string;
  agent?: NamedAgent;
  ctx: ToolContext;
  /** Makes the delegate tool the subagent gets (its subagents linked to its session) when the user allows nested subagents. */
  nested?: (sessionId: string) => DelegateTool;
  /** What the user's turn has spent on subagents: this one's tokens count there too, and it stops when the turn's are spent. */
  turn?: TurnSubagentSpend;
}

const GENERAL_AGENT = 'general';

/** The subagent's role: the first part of its instructions (the project's AGENTS.md files follow it). */
function rolePart(agent: NamedAgent | undefined): InstructionPart {
  return { path: 'subagent', label: agent ? `the subagent's role and the agent "${agent.name}"` : "the subagent's role", text: subagentInstructions(agent), followsActiveFile: false };
}

/** The subagent's instructions: who asked, what it has, and that its last message is the report. */
function subagentInstructions(agent: NamedAgent | undefined): string {
  const role = [
    'You are a subagent: another agent handed you the task in the user message. It sees only your final message, as your report.',
    'Work with the tools you have, then end with a concise report: what you found or did, with file paths and line numbers where they help. Do not ask questions; state what you assumed.',
  ].join('\n');
  return agent?.instructions ? `${role}\n\nInstructions of the agent "${agent.name}" (${agent.path}):\n${agent.instructions}` : role;
}

/**
 * Runs one subagent to its end: its own stored session linked to the parent's call, its own
 * context window, the same loop and approvals; its progress goes to the parent's events and its
 * last message, cut to the report bounds, is the result.
 */
export async function runSubagent(run: SubagentRun): Promise<ToolOutput> {
  const { env, agent, ctx } = run;
  const limits = env.limits();
  const name = agent?.name ?? GENERAL_AGENT;
  const info = await env.store.createSession({
    title: `${name}: ${run.task.split('\n')[0].slice(0, 80)}`,
    model: agent?.model ?? env.model,
    origin: subagentOrigin({ parentSessionId: env.parentSessionId(), parentCallId: ctx.callId, agent: name }),
  });
  const session = await env.openContext(info.id);
  const progress = (p: DistributiveOmit<SubagentProgress, 'callId' | 'sessionId' | 'agent'>) =>
    ctx.onEvent?.({ type: 'subagent', progress: { callId: ctx.callId, sessionId: info.id, ...(agent ? { agent: agent.name } : {}), ...p } as SubagentProgress });

  const nested = run.nested?.(info.id);
  const subagent = env.start({ session, agent, role: rolePart(agent), asker: { sessionId: info.id, name, parentCallId: ctx.callId }, nested, maxSteps: Math.max(1, limits.maxRequests) });

  const stop = new AbortController();
  const onParentAbort = () => stop.abort();
  ctx.signal.addEventListener('abort', onParentAbort, { once: true });
  let requests = 0;
  let tokens = 0;
  let capped: 'token_cap' | 'turn_token_cap' | undefined;
  let report = '';
  let failure: string | undefined;
  subagent.on((event: AgentEvent) => {
    switch (event.type) {
      case 'request_start':
        requests++;
        progress({ kind: 'request', requestIndex: event.requestIndex, usedTokens: event.usedTokens, effectiveWindow: event.effectiveWindow, percent: event.percent });
        break;
      case 'usage': {
        const used = (event.record.reportedInputTokens ?? event.record.estimatedInputTokens) + (event.record.reportedOutputTokens ?? 0);
        tokens += used;
        if (run.turn) run.turn.tokens += used;
        progress({ kind: 'usage', record: event.record });
        if ((tokens >= limits.maxTokens || run.turn?.tokensSpent()) && !capped) {
          capped = tokens >= limits.maxTokens ? 'token_cap' : 'turn_token_cap';
          stop.abort();
        }
        break;
      }
      case 'compaction':
        progress({ kind: 'compaction', event: event.event });
        break;
      case 'tool_call':
        progress({ kind: 'tool_call', toolName: event.call.name, toolCallId: event.call.id });
        break;
      case 'error':
        failure = event.message;
        break;
      case 'assistant_message':
        if (event.message.content.trim()) report = event.message.content;
        break;
      case 'approval_needed':
      case 'subagent':
        ctx.onEvent?.(event);
        break;
      case 'approval_resolved':
        ctx.onEvent?.({ ...event, callId: subagentCallId(info.id, event.callId) });
        break;
      default:
        break;
    }
  });

  progress({ kind: 'started', task: run.task });
  let stopReason: TurnStopReason = 'error';
  try {
    stopReason = await subagent.send(run.task, stop.signal);
  } finally {
    ctx.signal.removeEventListener('abort', onParentAbort);
    subagent.dispose();
    // Progress knows one token cap; the report says which bound it was.
    const ended = capped === 'turn_token_cap' ? 'token_cap' : (capped ?? (stopReason === 'max_steps' ? 'request_cap' : stopReason));
    progress({ kind: 'ended', stopReason: ended, requests, tokens, ...(failure ? { error: failure } : {}) });
  }
  const ended = capped ?? (stopReason === 'max_steps' ? 'request_cap' : stopReason);
  return boundedReport({ report, ended, name, requests, tokens, limits, cancelled: ctx.signal.aborted, failure });
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function boundedReport(args: { report: string; ended: string; name: string; requests: number; tokens: number; limits: ReturnType<SubagentEnvironment['limits']>; cancelled: boolean; failure?: string }): ToolOutput {
  const why: Record<string, string> = {
    token_cap: `it reached its token cap (${args.limits.maxTokens})`,
    turn_token_cap: `this turn's subagents reached their token bound together (${args.limits.maxTokensPerTurn})`,
    request_cap: `it reached its request cap (${args.limits.maxRequests})`,
    cancelled: 'the turn was cancelled',
    error: `a request failed${args.failure ? ` (${args.failure.slice(0, 300)})` : ''}`,
    blocked: 'its context was full after compaction',
    max_tokens: 'its last reply hit the output limit',
  };
  const stopped = why[args.ended];
  const footer = `[${args.name} subagent: ${args.requests} request${args.requests === 1 ? '' : 's'}, ${args.tokens} tokens${stopped ? `; stopped early: ${stopped}` : ''}]`;
  const body = args.report.trim() || (stopped ? 'The subagent stopped before it wrote a report.' : 'The subagent ended without a report.');
  const cut = truncateOutput(body, { maxLines: args.limits.maxReportLines, maxBytes: args.limits.maxReportBytes });
  return { output: `${cut.text}\n${footer}`, isError: args.ended === 'error' || args.ended === 'cancelled' || args.cancelled };
}
