import type { ToolDefinition } from '../model/tool';

/** What the user is asked before a tool runs (commands, edits): shown in the chat panel. */
export interface ApprovalRequest {
  toolName: string;
  callId: string;
  /** One line: "Run `npm test` in /repo", "Edit src/a.ts (+3 −1)". */
  title: string;
  /** Optional detail: a unified diff for edits, the full command line, the working folder. */
  detail?: string;
  kind: 'command' | 'edit' | 'other';
  /** Set for tools the user may allow for the rest of the session from the card: the tool's name. */
  allowForSession?: string;
  /** For edits: the resolved absolute path that would be written (links and `..` resolved). */
  target?: string;
  /** Why it asks even though the settings might allow it (a path that can run code, Restricted Mode). */
  reason?: string;
}

export type ApprovalDecision = 'approved' | 'denied';

export interface WorkspaceInfo {
  /** Absolute paths of the workspace folders (multi-root). The first one is the default. */
  folders: string[];
  /** Workspace trust: untrusted means no command execution and no workspace instructions. */
  trusted: boolean;
}

/** Services the agent offers to tools that act on the session itself. */
export interface SessionServices {
  readResult(args: { ref_id: string; offset?: number; limit?: number }): Promise<string>;
  compact(focus?: string): Promise<string>;
  searchTools(query: string): Promise<string>;
  activateSkill(name: string): Promise<string>;
}

export interface ToolContext {
  workspace: WorkspaceInfo;
  callId: string;
  signal: AbortSignal;
  /** Asks the user; resolves 'denied' when the policy or the user says no. */
  requestApproval(request: ApprovalRequest): Promise<ApprovalDecision>;
  session: SessionServices;
  /** Settings the tools honour. */
  limits: { commandTimeoutMs: number; maxCommandOutputBytes: number; maxReadBytes: number };
}

export interface ToolOutput {
  /** Raw output; truncation and offloading happen when it is recorded, not here. */
  output: string | Uint8Array;
  isError?: boolean;
}

export interface Tool {
  readonly definition: ToolDefinition;
  /** Parsed JSON arguments (already checked to be an object); throws ToolInputError on bad input. */
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

/** A clear, model-facing error about the arguments or the request (not a crash). */
export class ToolInputError extends Error {}
