import type { ToolRunner, ToolRunOptions, ToolRunResult } from '../agent/toolRunner';
import type { ToolCall } from '../model/message';
import type { ToolDefinition } from '../model/tool';
import type { WebAccess } from '../ports/webAccess';
import type { ResolvedPath, Workspace } from '../ports/workspace';
import { COMMANDS_RESTRICTED, EXTERNAL_TOOLS_RESTRICTED } from './approval';
import { parseToolArguments } from './args';
import type { SessionApprovals } from './sessionApprovals';
import { ToolInputError, type ApprovalRequest, type Tool, type ToolContext, type ToolLimits } from './types';

export interface ToolRegistryOptions {
  /** Where the tools come from, first wins on a shared name: built-in, session, then other extensions' (read on every call: they change). */
  sources: ReadonlyArray<() => readonly Tool[]>;
  /** The workspace as it is now (folders and trust change while a session runs). */
  workspace: () => Workspace;
  approvals: Pick<SessionApprovals, 'decide'>;
  limits: ToolLimits;
  /** The web fetch_url reaches, when the session has it. */
  web?: WebAccess;
  /** Told of every call before it runs (the prompt keeps recently used tools offered). */
  onCall?: (name: string) => void;
  /** Told of every workspace path a call resolved (the folder-scoped AGENTS.md files follow where the agent works). */
  onPathResolved?: (toolName: string, path: ResolvedPath) => void;
}

/** The same workspace, reporting each path it resolves. */
function reportingResolves(workspace: Workspace, report: (path: ResolvedPath) => void): Workspace {
  return new Proxy(workspace, {
    get(target, property) {
      if (property === 'resolve') {
        return async (input: string, options: { mustExist: boolean }) => {
          const resolved = await target.resolve(input, options);
          report(resolved);
          return resolved;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Thrown by `approve` when a call may not go on; the registry turns it into the result. */
class NotApproved extends Error {
  constructor(readonly result: ToolRunResult) {
    super(String(result.output));
  }
}

/**
 * Every tool a session has, each with its definition, handler and approval kind, and the one path
 * a call takes: look the tool up, parse its arguments, apply its kind's rules (Restricted Mode,
 * approvals), run it, and turn every mistake into a result the model can read.
 */
export class ToolRegistry implements ToolRunner {
  constructor(private readonly options: ToolRegistryOptions) {}

  private tools(): Tool[] {
    return this.options.sources.flatMap((source) => source());
  }

  /** The first source's tool with this name (first wins), without listing the later sources. */
  private find(name: string): Tool | undefined {
    for (const source of this.options.sources) {
      const tool = source().find((t) => t.definition.name === name);
      if (tool) return tool;
    }
    return undefined;
  }

  /** What the model is offered: listed tools, once per name (the one a call runs), without other extensions' in Restricted Mode. */
  definitions(): ToolDefinition[] {
    const trusted = this.options.workspace().trusted;
    const firstByName = new Map<string, Tool>();
    for (const tool of this.tools()) if (!firstByName.has(tool.definition.name)) firstByName.set(tool.definition.name, tool);
    return [...firstByName.values()].filter((t) => !t.unlisted && (trusted || t.approval !== 'external')).map((t) => t.definition);
  }

  concurrent(name: string): boolean {
    return this.find(name)?.concurrent === true;
  }

  async run(call: ToolCall, options: ToolRunOptions): Promise<ToolRunResult> {
    this.options.onCall?.(call.name);
    const tool = this.find(call.name);
    if (!tool) return { output: `Unknown tool "${call.name}".`, isError: true };
    let args: Record<string, unknown>;
    try {
      args = parseToolArguments(call.arguments);
    } catch (error) {
      return { output: `Invalid arguments for ${call.name}: ${(error as Error).message}`, isError: true };
    }
    const onPath = this.options.onPathResolved;
    const workspace = onPath ? reportingResolves(this.options.workspace(), (path) => onPath(call.name, path)) : this.options.workspace();
    if (!workspace.trusted && tool.approval === 'external') return { output: EXTERNAL_TOOLS_RESTRICTED, isError: true };
    if (!workspace.trusted && tool.approval === 'command') return { output: COMMANDS_RESTRICTED, isError: true };
    const ctx: ToolContext = {
      workspace,
      callId: call.id,
      signal: options.signal,
      limits: this.options.limits,
      ...(this.options.web ? { web: this.options.web } : {}),
      onEvent: options.onEvent,
      approve: async (asked, what) => {
        const request: ApprovalRequest = { ...asked, callId: call.id, toolName: call.name, kind: tool.approval === 'edit' ? 'edit' : tool.approval === 'command' ? 'command' : tool.approval === 'read' ? 'read' : 'other' };
        const outcome = await this.options.approvals.decide(request, workspace, options);
        if (outcome === 'cancelled') throw new NotApproved({ output: `The turn was cancelled before the user answered; ${call.name} did not run.`, isError: true, cancelled: true });
        if (outcome === 'denied') throw new NotApproved({ output: `The user denied ${what}.`, isError: true, denied: true });
        return { forSession: outcome === 'approved_for_session' };
      },
    };
    try {
      const result = await tool.execute(args, ctx);
      return { ...result, cancelled: options.signal.aborted };
    } catch (error) {
      if (error instanceof NotApproved) return error.result;
      const cancelled = options.signal.aborted;
      if (error instanceof ToolInputError) return { output: `${call.name}: ${error.message}`, isError: true, cancelled };
      return { output: `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true, cancelled };
    }
  }
}
