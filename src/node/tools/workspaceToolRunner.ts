import type { ToolCall } from '../../core/model/message';
import { answerUnlessCancelled, approvalNeed, type ApprovalPolicy } from '../../core/tools/approval';
import { parseToolArguments } from '../../core/tools/args';
import { protectedPathReason } from './protectedPaths';
import { ToolInputError, type ApprovalDecision, type ApprovalRequest, type SessionServices, type Tool, type ToolContext, type WorkspaceInfo } from '../../core/tools/types';
import type { ToolRunner, ToolRunOptions, ToolRunResult } from '../../core/agent/toolRunner';

export type { ApprovalPolicy };

/**
 * Runs workspace tools: parses arguments, asks for approval per the policy, and turns every
 * mistake (bad arguments, a path outside the workspace, a failing tool) into a result the model
 * can read. Calls it does not know go to `next`.
 */
export class WorkspaceToolRunner implements ToolRunner {
  private readonly byName: Map<string, Tool>;

  constructor(
    tools: Tool[],
    private readonly workspace: () => WorkspaceInfo,
    private readonly policy: () => ApprovalPolicy,
    private readonly ask: (request: ApprovalRequest) => Promise<ApprovalDecision>,
    private readonly limits: ToolContext['limits'],
    private readonly session: SessionServices,
    private readonly next?: ToolRunner,
  ) {
    this.byName = new Map(tools.map((t) => [t.definition.name, t]));
  }

  async run(call: ToolCall, options: ToolRunOptions): Promise<ToolRunResult> {
    const tool = this.byName.get(call.name);
    if (!tool) return this.next ? this.next.run(call, options) : { output: `Unknown tool "${call.name}".`, isError: true };
    const workspace = this.workspace();
    const ctx: ToolContext = {
      workspace,
      callId: call.id,
      signal: options.signal,
      limits: this.limits,
      session: this.session,
      requestApproval: async (asked) => {
        const protectedReason = asked.target ? await protectedPathReason(asked.target, workspace.folders) : undefined;
        const need = approvalNeed(this.policy(), { kind: asked.kind, trusted: workspace.trusted, protectedReason });
        if (!need.ask) return 'approved';
        const request = need.reason ? { ...asked, reason: need.reason, title: `${asked.title} — ${need.reason}` } : asked;
        options.onApprovalNeeded(request);
        const decision = await answerUnlessCancelled<ApprovalDecision>(this.ask(request), options.signal, 'denied');
        options.onApprovalResolved(decision);
        return decision;
      },
    };
    try {
      const result = await tool.execute(parseToolArguments(call.arguments), ctx);
      return { ...result, cancelled: options.signal.aborted };
    } catch (error) {
      if (error instanceof ToolInputError) return { output: `${call.name}: ${error.message}`, isError: true };
      return { output: `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }
}
