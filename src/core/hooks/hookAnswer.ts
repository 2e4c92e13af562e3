import type { HookExit } from '../ports/hookProcess';
import type { HookEventName } from './hookConfig';

/** What one hook said, read from its exit status and output as Claude Code reads them. */
export interface HookAnswer {
  /** PreToolUse: allow, deny or ask; `block`: the prompt (UserPromptSubmit) or the call's result (PostToolUse) is blocked. */
  decision?: 'allow' | 'deny' | 'ask' | 'block';
  /** Why, as the model (deny, block) or the user (ask) sees it. */
  reason?: string;
  /** Text the hook adds to the model's context. */
  context?: string;
  /** Something to show the user on the turn: the hook failed, timed out, or has a message. */
  notice?: string;
  /** `"continue": false`: the agent stops (a Stop hook saying so never makes the turn go on). */
  halt?: boolean;
  /** PreCompact: instructions for the summary (`hookSpecificOutput.customInstructions`). */
  instructions?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** Events whose plain (non-JSON) standard output is added to the context, as in Claude Code. */
const PLAIN_OUTPUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(['UserPromptSubmit', 'SessionStart']);

/**
 * Exit 0: standard output is read as JSON when it is JSON (a decision, context), else as context
 * for UserPromptSubmit and SessionStart. Exit 2: blocks, with standard error as the reason. Any
 * other status, a time-out (`limitMs`: the limit it ran into, said in the notice) or a failure to
 * start: a notice for the user, and the turn goes on.
 */
export function readHookAnswer(event: HookEventName, exit: HookExit, label: string, limitMs?: number): HookAnswer {
  if (exit.error) return { notice: `Hook ${label} could not start: ${exit.error}` };
  if (exit.timedOut) return { notice: `Hook ${label} did not finish in time and was stopped${limitMs === undefined ? '' : ` after its limit of ${seconds(limitMs)}`}; the turn went on without it.` };
  if (exit.exitCode === 2) {
    const reason = text(exit.stderr) ?? `blocked by hook ${label}`;
    return event === 'PreToolUse' ? { decision: 'deny', reason } : event === 'UserPromptSubmit' || event === 'PostToolUse' || event === 'Stop' ? { decision: 'block', reason } : { notice: `Hook ${label}: ${reason}` };
  }
  if (exit.exitCode !== 0) {
    const detail = text(exit.stderr) ?? text(exit.stdout);
    return { notice: `Hook ${label} failed (exit ${exit.exitCode ?? 'signal'})${detail ? `: ${firstLines(detail)}` : ''}` };
  }
  const out = exit.stdout.trim();
  if (!out) return {};
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch {
    if (out.startsWith('{')) return { notice: `Hook ${label} printed JSON that could not be read; its output was ignored.` };
    return PLAIN_OUTPUT_IS_CONTEXT.has(event) ? { context: out } : {};
  }
  if (!isObject(json)) return PLAIN_OUTPUT_IS_CONTEXT.has(event) ? { context: out } : {};
  return fromJson(json);
}

function fromJson(json: Record<string, unknown>): HookAnswer {
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const answer: HookAnswer = {};
  const permission = specific.permissionDecision;
  if (permission === 'allow' || permission === 'deny' || permission === 'ask') {
    answer.decision = permission;
    const reason = text(specific.permissionDecisionReason);
    if (reason) answer.reason = reason;
  } else if (json.decision === 'block') {
    answer.decision = 'block';
    const reason = text(json.reason);
    if (reason) answer.reason = reason;
  } else if (json.decision === 'approve') {
    answer.decision = 'allow';
  }
  if (json.continue === false) {
    answer.halt = true;
    answer.decision = 'block';
    answer.reason = text(json.stopReason) ?? answer.reason;
  }
  const context = text(specific.additionalContext);
  if (context) answer.context = context;
  const instructions = text(specific.customInstructions);
  if (instructions) answer.instructions = instructions;
  const message = text(json.systemMessage);
  if (message) answer.notice = message;
  return answer;
}

/** A time limit as the user set it: whole seconds ("60 s"), or tenths below ten ("2.5 s"). */
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 || Number.isInteger(s) ? Math.round(s) : s.toFixed(1)} s`;
}

function firstLines(value: string): string {
  const lines = value.split('\n');
  return lines.length > 5 ? `${lines.slice(0, 5).join('\n')}\n…` : value;
}
