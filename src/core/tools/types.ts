import type { AgentEvent } from '../agent/events';
import type { ToolDefinition } from '../model/tool';
import type { WebAccess } from '../ports/webAccess';
import type { Workspace } from '../ports/workspace';
import type { CommandAllowance } from './commandAllowance';
import type { ImageSource } from '../images/imageMessages';

/** What the user is asked before a tool runs (commands, edits, other extensions' tools): shown in the chat panel. */
export interface ApprovalRequest {
  toolName: string;
  callId: string;
  /** One line: "Run `npm test` in /repo", "Edit src/a.ts (+3 −1)". */
  title: string;
  /** Optional detail: a unified diff for edits, the full command line, the working folder. */
  detail?: string;
  /** `read`: a read that asks for a reason of its own (a hard-linked file); it always asks. */
  kind: 'command' | 'edit' | 'read' | 'other';
  /** What "Allow … for this session" on the card covers: a tool's name, or a command as its allowance's label says. */
  allowForSession?: string;
  /** For commands: what "Allow for this session" grants, and what this command is matched as against earlier grants. */
  allowance?: CommandAllowance;
  /** For commands: what runs besides the line itself (a package's scripts), shown on the card. */
  runs?: string;
  /** For commands: why the card offers no allowance, shown on the card. */
  noAllowance?: string;
  /** For commands: the full command line. */
  command?: string;
  /** For commands: whether it runs in the sandbox and what it may touch there, or why it runs without one. */
  sandbox?: SandboxNote;
  /** For commands: this asks to run the command again outside the sandbox, which asks every time (no setting or allowance skips it). */
  outsideSandbox?: boolean;
  /** What the Approve button says, when it does something more specific than approve ("Run outside the sandbox"). */
  approveLabel?: string;
  /** For edits: the resolved absolute path that would be written (links and `..` resolved). */
  target?: string;
  /** For edits: the whole text before and after, for a diff in the editor (never sent to the webview). */
  preview?: { before: string; after: string };
  /** Why it asks even though the settings might allow it (a path that can run code, Restricted Mode). */
  reason?: string;
  /** For a fetch: what "for this session" covers (the host, or `local:<host>` for a host at a local address). */
  domain?: string;
  /** For a fetch: the host resolves to a loopback, private or other local address; `tally exec --allow web` never approves it. */
  localAddress?: boolean;
  /** Set when a subagent asks: which one (its session, its agent's name) and the parent's delegate call that started it. */
  subagent?: { sessionId: string; name: string; parentCallId: string };
}

/** The card's line about the sandbox: one sentence, and the whole of it for a closer look. */
export interface SandboxNote {
  sandboxed: boolean;
  text: string;
  detail?: string;
}

export type ApprovalDecision = 'approved' | 'denied';

/** How a tool is gated: reads ask only for a reason they give (a hard-linked file); edits and commands follow the approval settings; external tools ask unless allowed; web fetches ask per domain. */
export type ApprovalKind = 'read' | 'edit' | 'command' | 'external' | 'web';

export interface WorkspaceInfo {
  /** Absolute paths of the workspace folders (multi-root). The first one is the default. */
  folders: string[];
  /** Workspace trust: untrusted means no command execution and no workspace instructions. */
  trusted: boolean;
}

export interface ToolLimits {
  commandTimeoutMs: number;
  maxCommandOutputBytes: number;
  maxReadBytes: number;
}

export interface ToolContext {
  workspace: Workspace;
  callId: string;
  signal: AbortSignal;
  /**
   * Asks the user when the policy says so; returns when the call may go on, and whether the user
   * chose "for this session". When it may not, it throws and the result says so: "The user denied
   * <what>." or that the turn was cancelled.
   */
  approve(request: Omit<ApprovalRequest, 'callId' | 'toolName' | 'kind'>, what: string): Promise<{ forSession: boolean }>;
  /** Settings the tools honour. */
  limits: ToolLimits;
  /** The web, for fetch_url; absent where the session has none. */
  web?: WebAccess;
  /** Reports progress among the agent's own events (a subagent's). */
  onEvent?(event: AgentEvent): void;
}

export interface ToolOutput {
  /** Raw output; truncation and offloading happen when it is recorded, not here. */
  output: string | Uint8Array;
  isError?: boolean;
  /** Images the tool read, sent to the model as images after the response's results. */
  images?: ImageSource[];
}

/** A tool as the registry holds it: what the model sees, how it is gated, and what runs. */
export interface Tool {
  readonly definition: ToolDefinition;
  readonly approval: ApprovalKind;
  /** Offered by the prompt itself when it applies (tool_search, activate_skill), not in the tool list. */
  readonly unlisted?: boolean;
  /** Several calls of it in one response start together instead of one after another (subagents). */
  readonly concurrent?: boolean;
  /** Parsed JSON arguments (already checked to be an object); throws ToolInputError on bad input. */
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

/** A clear, model-facing error about the arguments or the request (not a crash). */
export class ToolInputError extends Error {}
