import type { ToolRunner, ToolRunOptions, ToolRunResult } from '../agent/toolRunner';
import type { ToolCall } from '../model/message';
import type { Workspace } from '../ports/workspace';
import type { SessionApprovals } from '../tools/sessionApprovals';
import type { HookContext } from './hookContext';
import { hookToolCall, hookToolNames } from './hookToolNames';
import { hookLabel, type Hooks, type HookOutcome } from './hooks';

/** The text the model reads when a hook denied a call. */
export function hookDenial(outcome: Pick<HookOutcome, 'reason' | 'decidedBy'>): string {
  return `A hook (${hookLabel(outcome.decidedBy ?? 'hook')}) denied this call: ${outcome.reason ?? 'no reason given'}`;
}

function argumentsOf(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function outputText(output: string | Uint8Array): string {
  return typeof output === 'string' ? output : `[${output.byteLength} bytes]`;
}

export interface HookedToolsOptions {
  hooks: Hooks;
  context: HookContext;
  /** Asks the user when a hook answers "ask". */
  approvals: Pick<SessionApprovals, 'decide'>;
  workspace: () => Workspace;
  /** Calls a user's own hook allowed: their approval is skipped (the registry's approvals read this). */
  allowed: Set<string>;
}

/**
 * The tools with PreToolUse and PostToolUse hooks around each call: a hook can deny a call (the
 * model reads the reason), ask the user, or allow it; after the call, add context or block with a
 * reason the model reads. Failures and time-outs are notices on the turn; the call goes on.
 */
export class HookedTools implements ToolRunner {
  constructor(
    private readonly inner: ToolRunner,
    private readonly options: HookedToolsOptions,
  ) {}

  concurrent(name: string): boolean {
    return this.inner.concurrent?.(name) === true;
  }

  async run(call: ToolCall, options: ToolRunOptions): Promise<ToolRunResult> {
    const { hooks, context } = this.options;
    const names = hookToolNames(call.name);
    const configured = await hooks.configured();
    if (!(await hooks.matching('PreToolUse', names, configured)).length && !(await hooks.matching('PostToolUse', names, configured)).length) return this.inner.run(call, options);
    const shown = { ...hookToolCall(call.name, argumentsOf(call)), tool_use_id: call.id, tally_tool_name: call.name };
    const notify = (notices: readonly string[]) => notices.forEach((message) => options.onEvent?.({ type: 'notice', message }));
    const pre = await hooks.fire('PreToolUse', shown, names, options.signal, configured);
    notify(pre.notices);
    context.add('PreToolUse', pre.context);
    if (pre.decision === 'deny' || pre.decision === 'block') return { output: hookDenial(pre), isError: true, denied: { hook: pre.decidedBy ?? 'hook', reason: pre.reason ?? 'no reason given' } };
    if (pre.decision === 'ask') {
      const reason = `a hook asks (${hookLabel(pre.decidedBy ?? '')})${pre.reason ? `: ${pre.reason}` : ''}`;
      const outcome = await this.options.approvals.decide({ toolName: call.name, callId: call.id, title: `Let ${call.name} run? ${reason}`, kind: 'read', reason }, this.options.workspace(), options);
      if (outcome === 'cancelled') return { output: `The turn was cancelled before the user answered; ${call.name} did not run.`, isError: true, cancelled: true };
      if (outcome === 'denied') return { output: `The user denied ${call.name} after a hook asked.`, isError: true, denied: true };
    } else if (pre.decision === 'allow' && pre.allowedBy.every((origin) => origin === 'user')) {
      this.options.allowed.add(call.id);
    }
    let result: ToolRunResult;
    try {
      result = await this.inner.run(call, options);
    } finally {
      this.options.allowed.delete(call.id);
    }
    if (result.cancelled || result.denied) return result;
    const post = await hooks.fire('PostToolUse', { ...shown, tool_response: { output: outputText(result.output), is_error: result.isError === true } }, names, options.signal, configured);
    notify(post.notices);
    context.add('PostToolUse', post.context);
    if (post.decision === 'block') context.add('PostToolUse', [{ command: post.decidedBy ?? 'hook', text: `About the ${call.name} call just made: ${post.reason ?? 'a hook objected to its result'}` }]);
    return result;
  }
}

/** The session's approvals, except that a call a user's own hook allowed is approved without asking (never a run outside the sandbox, never a read that asks for a reason of its own). */
export function hookAllowedApprovals(approvals: Pick<SessionApprovals, 'decide'>, allowed: ReadonlySet<string>): Pick<SessionApprovals, 'decide'> {
  return {
    decide: (request, workspace, options) => (allowed.has(request.callId) && !request.outsideSandbox && request.kind !== 'read' ? Promise.resolve('approved') : approvals.decide(request, workspace, options)),
  };
}
