import type { TokenCounter } from '../../accounting/tokenizer';
import type { ContextSession } from '../../context/contextSession';
import type { ToolDefinition } from '../../model/tool';
import type { SessionStore } from '../../ports/sessionStore';
import type { WebAccess } from '../../ports/webAccess';
import type { Workspace } from '../../ports/workspace';
import type { InstructionPart, ToolText } from '../../prompt/promptSections';
import type { Skill } from '../../prompt/skills';
import type { SessionPrompt } from '../../prompt/sessionPrompt';
import type { ChatProvider, ReasoningRequest } from '../../providers/types';
import type { ContextSettings } from '../../settings';
import type { ToolRegistryOptions } from '../../tools/registry';
import type { SessionApprovals } from '../../tools/sessionApprovals';
import type { Tool, ToolLimits } from '../../tools/types';
import type { Hooks } from '../../hooks/hooks';
import type { AgentMode } from '../../plan/planMode';
import type { AgentOptions } from '../agentSession';
import type { AgentListener } from '../events';
import type { SubagentLimits } from '../subagents/delegateTool';
import type { NamedAgent } from '../subagents/namedAgents';

/**
 * Everything that makes one agent, as a caller (the chat, `tally exec`) describes it. `buildAgent`
 * turns it into an `AgentSession`; subagents are built from their parent's description.
 */
export interface AgentBuild {
  /** The working context the agent reads and records into. */
  contextSession: ContextSession;
  store: SessionStore;
  model: AgentModel;
  settings: ContextSettings;
  /** Where the tools come from, in order: the first tool of a name wins (see toolSources.ts). */
  tools: readonly ToolSource[];
  /** Which tools the user offers the model (Configure Tools); applies to every source's tools and so to subagents'. Default: all. */
  offered?: (tool: ToolDefinition) => boolean;
  /** What the prompt carries besides the base instructions and the tools: AGENTS.md files, skills… */
  context?: readonly ContextContributor[];
  /** Where tool calls act and who approves them. */
  environment: ToolEnvironment;
  /** Set when the agent may delegate: the `DELEGATION` source then offers the delegate tool. */
  subagents?: SubagentSetup;
  /** The user's hooks: around every tool call (subagents' too), and around this agent's turns, compactions and its session's start. */
  hooks?: Hooks;
  /** Plan mode (read and search only, the turn ends with a plan) or act; read before every request and call. Default: act. */
  mode?: () => AgentMode;
  /** Told of every event the agent reports (subagents' progress arrives as `subagent` events). */
  observers?: readonly AgentListener[];
  /** Requests in one turn before the loop stops (default: the loop's). */
  maxSteps?: number;
  /** Told of the prompt this agent (not its subagents) builds its requests from: Configure Tools reads each tool's cost from it. */
  onPrompt?: (prompt: SessionPrompt) => void;
  /** The loop's waits and re-sends, for callers that control time (tests). */
  loop?: Pick<AgentOptions, 'sleep' | 'retry' | 'streamRetries' | 'maxPauses'>;
}

/** The model the agent talks to and what each request asks of it. */
export interface AgentModel {
  provider: ChatProvider;
  id: string;
  maxOutputTokens: number;
  counter: TokenCounter;
  /** The thinking each request asks for; subagents on the same model ask the same. */
  reasoning?: ReasoningRequest;
  /** A tool's text as this provider sends it (default: name, description and schema). */
  toolText?: ToolText;
  /** Whether the model takes images, when the user said so (`tally.models.images`); else known from its provider and name. */
  images?: boolean;
}

/**
 * A place tools come from: Tally's own (`BUILTIN_TOOLS`, `SESSION_TOOLS`, `DELEGATION`), VS Code's
 * language-model tools, MCP servers. Read on every request and every call, since they change.
 */
export interface ToolSource {
  /** The tools now, for the session they serve (a subagent's own session for a subagent's tools). */
  tools(scope: ToolScope): readonly Tool[];
  /** Said with every tool_search answer, e.g. why some of this source's tools are not offered now. */
  note?(): string | undefined;
  /** What Configure Tools lists of this source, without a session (none: the source is always offered or has nothing to pick). */
  listed?(): readonly ToolDefinition[];
}

export interface ToolScope {
  store: SessionStore;
  /** The session the tools act on. */
  session: ContextSession;
  /** This agent's delegate tool, when it may start subagents. */
  delegate?: Tool;
}

/** Something the prompt carries: AGENTS.md files, skills; later a hook's output or a todo list. */
export interface ContextContributor {
  /** Parts read before every request: stable ones go in the system prompt, ones that follow the active file in the dynamic note. */
  instructions?(): Promise<readonly InstructionPart[]>;
  /** Skills the model may activate, listed in the system prompt. */
  skills?(): Promise<readonly Skill[]>;
  /** A listed skill's full text, read when the model activates it; throws with the reason when it cannot. */
  skillText?(skill: Skill): Promise<string>;
  /** Subagents carry this contributor too (AGENTS.md: they work in the same project). */
  sharedWithSubagents?: boolean;
}

/** Where tool calls act, what bounds them, and who says yes. Subagents share it (their cards say who asks). */
export interface ToolEnvironment {
  /** The workspace as it is now (folders and trust change while a session runs). */
  workspace: () => Workspace;
  approvals: Pick<SessionApprovals, 'decide'>;
  limits: ToolLimits;
  /** The web the `WEB_TOOLS` source's fetch_url reaches (Node's, with its address checks); without it fetch_url says it is unavailable. */
  web?: WebAccess;
  /** Told of every workspace path one of the agent's own calls resolved. */
  onPathResolved?: ToolRegistryOptions['onPathResolved'];
}

/** What only a delegating agent needs: how its subagents are bounded, named and opened. */
export interface SubagentSetup {
  limits(): SubagentLimits;
  /** The named agents known now (none from an untrusted workspace). */
  agents(): Promise<NamedAgent[]>;
  /** Whether a named agent's `model` is one the user chose for this provider (never another endpoint). */
  modelAllowed(model: string): boolean;
  /** Opens a subagent's own working context (its window, its summarizer). */
  openContext(sessionId: string): Promise<ContextSession>;
}
