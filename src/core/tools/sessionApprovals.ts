import type { ToolRunOptions } from '../agent/toolRunner';
import type { Workspace } from '../ports/workspace';
import { answerUnlessCancelled, approvalNeed, type ApprovalAnswer, type ApprovalPolicy } from './approval';
import { allowanceCovers, type CommandAllowance } from './commandAllowance';
import type { ApprovalRequest } from './types';

export interface ApprovalSource {
  /** The approval settings, from the user's own (user-scope) settings only. */
  policy(): ApprovalPolicy;
  /** External tool names the user allowed for good, from their own settings only. */
  allowedTools(): readonly string[];
  /** Shows the approval card (and, for edits, the diff) and waits for the answer. */
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** The turn was cancelled while the request waited: take its card (and diff) away. */
  withdraw?(request: ApprovalRequest): void;
}

/** `approved_for_session`: the user approved with "for this session" (what that grants is the request's to say). */
export type ApprovalOutcome = 'approved' | 'approved_for_session' | 'denied' | 'cancelled';

/**
 * Decides each approval of a session: what the settings allow, what the user allowed for the rest
 * of the session (external tools by name, commands by their allowance), and what always asks (paths that
 * can run code, Restricted Mode, a command to run outside the sandbox). Everything else goes to the
 * user, and so does every read that asks (a read asks only for a reason of its own, which no setting
 * or allowance skips).
 */
export class SessionApprovals {
  private readonly toolsThisSession = new Set<string>();
  private readonly domainsThisSession = new Set<string>();
  private readonly commandsThisSession: CommandAllowance[] = [];

  constructor(private readonly source: ApprovalSource) {}

  async decide(asked: ApprovalRequest, workspace: Workspace, options: ToolRunOptions): Promise<ApprovalOutcome> {
    let request = asked;
    if (asked.kind === 'other') {
      // A fetch is allowed by its domain, never by the tool's name.
      if (asked.domain !== undefined ? this.domainsThisSession.has(asked.domain) : this.toolsThisSession.has(asked.toolName) || this.source.allowedTools().includes(asked.toolName)) return 'approved';
    } else if (asked.kind !== 'read') {
      const protectedReason = asked.target ? await workspace.protectedReason(asked.target) : undefined;
      const need: ReturnType<typeof approvalNeed> = asked.outsideSandbox ? { ask: true } : approvalNeed(this.source.policy(), { kind: asked.kind, trusted: workspace.trusted, protectedReason });
      if (!need.ask) return 'approved';
      if (need.reason) request = { ...asked, reason: need.reason, title: `${asked.title} — ${need.reason}` };
      else if (asked.kind === 'command' && !asked.outsideSandbox && asked.allowance && this.commandsThisSession.some((granted) => allowanceCovers(granted, asked.allowance!))) return 'approved';
    }
    options.onApprovalNeeded(request);
    const answer = await answerUnlessCancelled<ApprovalAnswer>(this.source.ask(request), options.signal, { approved: false });
    options.onApprovalResolved(answer.approved ? 'approved' : 'denied');
    if (options.signal.aborted) {
      this.source.withdraw?.(request);
      return 'cancelled';
    }
    if (!answer.approved) return 'denied';
    if (answer.forSession && request.kind === 'other' && request.allowForSession) {
      if (request.domain !== undefined) this.domainsThisSession.add(request.domain);
      else this.toolsThisSession.add(request.toolName);
    }
    if (answer.forSession && request.kind === 'command' && request.allowance) this.commandsThisSession.push(request.allowance);
    // "For this session" counts only where the card offered it.
    return answer.forSession && request.allowForSession ? 'approved_for_session' : 'approved';
  }
}
