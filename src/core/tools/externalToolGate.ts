import type { ToolRunOptions } from '../agent/toolRunner';
import type { ApprovalRequest } from './types';
import { answerUnlessCancelled } from './approval';

/** The user's answer to an approval that offers "Allow <tool> for this session". */
export interface ApprovalAnswer {
  approved: boolean;
  /** Allow this tool without asking for the rest of the session. */
  forSession?: boolean;
}

export interface ExternalToolPolicy {
  /** Workspace trust; in Restricted Mode no external tool is offered or run. */
  trusted(): boolean;
  /** Tool names the user allowed for good, from their own (user-scope) settings only. */
  allowedByUser(): readonly string[];
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
}

/** What a tool call looks like on the approval card. */
export interface ExternalToolCall {
  callId: string;
  name: string;
  /** "extension publisher.name" or "MCP server". */
  source: string;
  /** The input as the tool will receive it (pretty JSON). */
  input: string;
}

/**
 * Why no external tool runs in Restricted Mode: VS Code describes a registered tool by name,
 * description, input schema and self-declared tags only, so nothing tells which tools just read.
 */
export const EXTERNAL_TOOLS_RESTRICTED =
  'Tools from other extensions and MCP servers are not available in Restricted Mode: VS Code does not say which of them only read, so none runs until the user trusts this workspace.';

const MAX_INPUT_CHARS = 8_000;

/**
 * Decides whether a tool another extension or an MCP server registered may run: never in
 * Restricted Mode; without asking when the user allowed it in their settings or earlier in this
 * session; otherwise only after the user approves it on the chat's approval card, like a command.
 */
export class ExternalToolGate {
  private readonly allowedThisSession = new Set<string>();

  constructor(private readonly policy: ExternalToolPolicy) {}

  /** The tools to offer the model: none in Restricted Mode. */
  offered<T extends { name: string }>(tools: readonly T[]): T[] {
    return this.policy.trusted() ? [...tools] : [];
  }

  /** Undefined when the call may run; otherwise the result the model reads instead. */
  async admit(call: ExternalToolCall, options: ToolRunOptions): Promise<string | undefined> {
    if (!this.policy.trusted()) return EXTERNAL_TOOLS_RESTRICTED;
    if (this.allowedThisSession.has(call.name) || this.policy.allowedByUser().includes(call.name)) return undefined;
    const input = call.input.length > MAX_INPUT_CHARS ? `${call.input.slice(0, MAX_INPUT_CHARS)}\n… (${call.input.length - MAX_INPUT_CHARS} more characters)` : call.input;
    const request: ApprovalRequest = {
      toolName: call.name,
      callId: call.callId,
      title: `Run the tool ${call.name} from ${call.source}`,
      detail: `Input:\n${input}`,
      kind: 'other',
      allowForSession: call.name,
    };
    options.onApprovalNeeded(request);
    const answer = await answerUnlessCancelled<ApprovalAnswer>(this.policy.ask(request), options.signal, { approved: false });
    options.onApprovalResolved(answer.approved ? 'approved' : 'denied');
    if (options.signal.aborted) return `The turn was cancelled before the user answered; ${call.name} did not run.`;
    if (!answer.approved) return `The user denied running the tool ${call.name}.`;
    if (answer.forSession) this.allowedThisSession.add(call.name);
    return undefined;
  }
}
