import { homedir } from 'os';
import { dirname, join } from 'path';
import * as vscode from 'vscode';
import { getTokenCounter } from '../core/accounting/tokenizer';
import { loadInstructions, type InstructionsReport } from '../node/prompt/agentsMd';
import { loadSkills, skillText, type SkillsReport } from '../node/prompt/skillFiles';
import { lmToolDefinitions, lmTools, userAllowedTools } from '../vscodeLm/lmTools';
import { EXTERNAL_TOOLS_RESTRICTED, type ApprovalAnswer } from '../core/tools/approval';
import type { ApprovalRequest } from '../core/tools/types';
import { onCallIdRepair } from '../core/history/repairCallIds';
import type { AgentSession } from '../core/agent/agentSession';
import type { ToolEnvironment, ToolSource } from '../core/agent/build/agentBuild';
import { buildAgent } from '../core/agent/build/buildAgent';
import { BUILTIN_TOOLS, DELEGATION, SESSION_TOOLS, WEB_TOOLS } from '../core/agent/build/toolSources';
import { nodeWebAccess } from '../node/web/nodeWebAccess';
import { readableInWorker } from '../node/web/readableInWorker';
import { builtinTools } from '../core/tools/builtin';
import { ToolRegistry } from '../core/tools/registry';
import { SessionApprovals } from '../core/tools/sessionApprovals';
import { EditApprovalDiffs } from '../workspace/editApprovalDiff';
import { VscodeWorkspace } from '../workspace/vscodeWorkspace';
import type { ContextSession } from '../core/context/contextSession';
import type { SessionStore } from '../core/ports/sessionStore';
import { readConfiguration, type TallyConfiguration } from '../config/readSettings';
import { userValue } from '../config/userScope';
import type { ToolRunResult } from '../core/agent/toolRunner';
import type { ToolCall } from '../core/model/message';
import type { AgentMode } from '../core/plan/planMode';
import { toolWireText } from '../core/providers/toolWireForms';
import type { ChatModel } from '../host/sessionState/sessionPorts';
import type { ResolvedPath, Workspace } from '../core/ports/workspace';
import type { ToolDefinition } from '../core/model/tool';
import { isInternalTool, offeredByChoice, toolPickerRows, type ToolPickerRow } from '../core/tools/toolChoice';
import { countToolDefinitions } from '../core/accounting/messageTokens';
import type { SessionPrompt } from '../core/prompt/sessionPrompt';
import { SESSION_TOOL_DEFINITIONS } from '../core/tools/sessionTools';
import { TOOL_SEARCH_TOOL } from '../core/prompt/toolDeferral';
import { ACTIVATE_SKILL_TOOL } from '../core/prompt/skills';
import { ToolChoiceState } from '../vscodeLm/toolChoiceState';
import type { CommandSandbox } from '../node/sandbox/commandSandbox';
import { sessionSandbox } from '../sandbox/sandboxSettings';
import { chatHooks } from './chatHooks';
import { chatSubagents, workspaceAgents } from './subagentEnvironment';
import type { EditorMcp } from '../mcp/editorMcp';

/** Tools whose path is a file (its folder is where the agent worked), and tools whose path is the folder itself. */
const FILE_TOOLS = new Set(['read_file', 'edit_file', 'write_file']);
const FOLDER_TOOLS = new Set(['list_files', 'search_text']);

/** Wires an agent for a session: prompt (with AGENTS.md), tools, approvals. */
export class AgentFactory {
  /** Pending approvals by call id: what each waits for, and how to answer it. */
  private readonly approvals = new Map<string, { kind: ApprovalRequest['kind']; answer: (answer: ApprovalAnswer) => void }>();
  private readonly loggedSkips = new Set<string>();
  private readonly diffs = new EditApprovalDiffs();
  /** Paths the latest session's agent read, edited, listed or searched: the AGENTS.md files of their folders load. */
  private touched = { sessionId: '', paths: new Set<string>() };
  /** Which tools the user chose to offer (Configure Tools), from the user's global state. */
  readonly toolChoice: ToolChoiceState;
  /** The latest session's command sandbox (its subagents share it): what the user allowed it lasts while the session does. */
  private sandbox?: { sessionId: string; sandbox: CommandSandbox };
  /** The latest session's prompt: what it offered last and what each tool costs, as Configure Tools shows them. */
  private livePrompt?: SessionPrompt;
  /** Wraps the tools' workspace so each turn's writes and commands are recorded for restoring (sessionRewind.ts). */
  private recordWrites: (workspace: Workspace) => Workspace = (workspace) => workspace;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    /** The MCP servers Tally runs itself: their tools are one more source, started when a session first builds its agent. */
    readonly mcp?: EditorMcp,
  ) {
    this.toolChoice = new ToolChoiceState(context.globalState);
    context.subscriptions.push(this.diffs, {
      dispose: onCallIdRepair((sessionId, renamed) =>
        log.warn(`session ${sessionId}: repaired ${renamed.length} repeated tool-call id(s) on load (${renamed.map((r) => `${r.from || '(empty)'} → ${r.to}`).join(', ')})`),
      ),
    });
  }

  /** The tools' writes and commands are recorded through `wrap` from now on. */
  useCheckpoints(wrap: (workspace: Workspace) => Workspace): void {
    this.recordWrites = wrap;
  }

  /**
   * AGENTS.md files: the user's ~/.tally/AGENTS.md, every folder root, nested files down to the
   * active file and to every path the agent worked on; none from an untrusted workspace.
   */
  async loadInstructions(): Promise<InstructionsReport> {
    return loadInstructions({
      userFile: join(homedir(), '.tally', 'AGENTS.md'),
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      activeFile: vscode.window.activeTextEditor?.document.uri.scheme === 'file' ? vscode.window.activeTextEditor.document.uri.fsPath : undefined,
      touchedPaths: [...this.touched.paths],
      trusted: vscode.workspace.isTrusted,
    });
  }

  /** Every tool Configure Tools lists: the built-in ones, then VS Code's, other extensions' and MCP servers' (internal ones never). */
  pickableTools(): ToolDefinition[] {
    return this.toolSources().flatMap((source) => source.listed?.() ?? []);
  }

  /** Where the chat's agent takes its tools from, in order: the same list Configure Tools lists from. */
  private toolSources(): ToolSource[] {
    return [BUILTIN_TOOLS, SESSION_TOOLS, DELEGATION, WEB_TOOLS, this.vscodeLmTools, ...(this.mcp ? [this.mcp.toolSource] : [])];
  }

  /**
   * Configure Tools' rows: every pickable tool and Tally's own session tools (always offered), each
   * as the latest session's prompt offers it (the delegate tool with its agent index) and with the
   * cost that prompt counts for it, so the picker, its message and the inspector show one figure.
   */
  async pickerRows(): Promise<ToolPickerRow[]> {
    const prompt = this.livePrompt;
    const offered = new Map((prompt?.lastOffered() ?? []).map((t) => [t.name, t]));
    const always = [...SESSION_TOOL_DEFINITIONS, ...[...offered.values()].filter((t) => t.name === TOOL_SEARCH_TOOL.name || t.name === ACTIVATE_SKILL_TOOL.name)];
    const definitions = [...this.pickableTools(), ...always].map((t) => offered.get(t.name) ?? t);
    let tokensOf = (tool: ToolDefinition) => prompt?.toolCost(tool) ?? 0;
    if (!prompt) {
      const counter = getTokenCounter('o200k_base');
      await counter.load();
      tokensOf = (tool) => countToolDefinitions([tool], counter);
    }
    return toolPickerRows(definitions, this.toolChoice.get(), tokensOf, new Set(always.map((t) => t.name)));
  }

  /** Remembers the folders the agent worked in (file tools only; a command's folder is not what it reads). */
  private noteTouched(toolName: string, path: ResolvedPath): void {
    if (!vscode.workspace.isTrusted) return;
    if (FILE_TOOLS.has(toolName)) this.touched.paths.add(dirname(path.absolute));
    else if (FOLDER_TOOLS.has(toolName)) this.touched.paths.add(path.absolute);
  }

  /** Skills from the workspace (trusted only) and ~/.tally/skills; a skill that cannot be read is logged once. */
  async loadSkills(): Promise<SkillsReport> {
    const report = await loadSkills({
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      userSkillsFolder: join(homedir(), '.tally', 'skills'),
      trusted: vscode.workspace.isTrusted,
    });
    for (const skip of report.skipped) {
      const key = `${skip.path}\n${skip.reason}`;
      if (this.loggedSkips.has(key)) continue;
      this.loggedSkips.add(key);
      this.log.warn(`skill skipped: ${skip.path}: ${skip.reason}`);
    }
    return report;
  }

  async create(args: { contextSession: ContextSession; chat: ChatModel; config: TallyConfiguration; store: SessionStore; mode?: () => AgentMode }): Promise<AgentSession> {
    if (this.touched.sessionId !== args.contextSession.sessionId) this.touched = { sessionId: args.contextSession.sessionId, paths: new Set() };
    if (this.sandbox?.sessionId !== args.contextSession.sessionId) this.sandbox = { sessionId: args.contextSession.sessionId, sandbox: sessionSandbox(this.context.globalStorageUri) };
    const { chat, config, store } = args;
    const counter = getTokenCounter(chat.model.encoding);
    this.mcp?.startInBackground();
    return buildAgent({
      contextSession: args.contextSession,
      store,
      model: { provider: chat.provider, id: chat.model.id, maxOutputTokens: chat.maxOutputTokens, counter, ...(chat.reasoning ? { reasoning: chat.reasoning } : {}), toolText: (tool) => toolWireText(chat.provider, tool), ...imagesSetting(chat.model.id) },
      settings: config.context,
      tools: this.toolSources(),
      offered: (tool) => offeredByChoice(tool, this.toolChoice.get()),
      context: [
        // Subagents carry the same AGENTS.md files as the session (none from an untrusted workspace), counted in their own prompts.
        { instructions: async () => (await this.loadInstructions()).parts, sharedWithSubagents: true },
        { skills: async () => (await this.loadSkills()).skills, skillText: (skill) => skillText(skill) },
      ],
      environment: this.environment(config, this.sandbox.sandbox, (tool, path) => this.noteTouched(tool, path)),
      hooks: chatHooks({ sessionId: () => args.contextSession.sessionId, sandbox: this.sandbox.sandbox, log: this.log }),
      subagents: chatSubagents({ chat, config, store, counter, agents: () => workspaceAgents(this.log, this.loggedSkips) }),
      onPrompt: (prompt) => (this.livePrompt = prompt),
      ...(args.mode ? { mode: args.mode } : {}),
    });
  }

  /** Tools of VS Code, other extensions and MCP servers (`vscode.lm.tools`); in Restricted Mode tool_search says why they are not offered. */
  private readonly vscodeLmTools: ToolSource = {
    tools: () => lmTools(),
    listed: () => lmToolDefinitions().filter((t) => !isInternalTool(t.name)),
    note: () => (!vscode.workspace.isTrusted && lmTools().some((tool) => offeredByChoice(tool.definition, this.toolChoice.get())) ? EXTERNAL_TOOLS_RESTRICTED : undefined),
  };

  /** Where the session's tools act: the live workspace folders and trust, approvals through the chat panel and the diff editor. */
  private environment(config: TallyConfiguration, sandbox: CommandSandbox, onPathResolved?: ToolEnvironment['onPathResolved']): ToolEnvironment {
    return {
      workspace: () => this.recordWrites(new VscodeWorkspace({ folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), trusted: vscode.workspace.isTrusted }, sandbox)),
      approvals: new SessionApprovals({ policy: () => config.approval, allowedTools: userAllowedTools, ask: (request) => this.ask(request), withdraw: (request) => this.resolveApproval(request.callId, false) }),
      limits: { commandTimeoutMs: config.commandTimeoutMs, maxCommandOutputBytes: 8 * 1024 * 1024, maxReadBytes: 2 * 1024 * 1024 },
      onPathResolved,
      web: this.web,
    };
  }

  /** fetch_url's web: one reader thread for the window, started at the first page (dist/readableWorker.js beside this bundle). */
  readonly web = nodeWebAccess({ readable: readableInWorker(join(__dirname, 'readableWorker.js')) });

  /** Runs one built-in tool call outside a chat turn (used by the extension-host tests and diagnostics). */
  runWorkspaceTool(call: ToolCall, onApprovalNeeded: (request: ApprovalRequest) => void = () => undefined): Promise<ToolRunResult> {
    return new ToolRegistry({ ...this.environment(readConfiguration(), sessionSandbox(this.context.globalStorageUri)), sources: [builtinTools] }).run(call, { signal: new AbortController().signal, onApprovalNeeded, onApprovalResolved: () => undefined });
  }

  /** Waits for the answer to an approval card; an edit's diff is open in the editor meanwhile. */
  private ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const answer = new Promise<ApprovalAnswer>((resolve) => this.approvals.set(request.callId, { kind: request.kind, answer: resolve }));
    void this.diffs.show(request).catch((error) => this.log.warn(`could not open the diff of ${request.title}: ${error instanceof Error ? error.message : String(error)}`));
    return answer;
  }

  resolveApproval(callId: string, approved: boolean, forSession = false): void {
    this.approvals.get(callId)?.answer({ approved, forSession: approved && forSession });
    this.approvals.delete(callId);
    void this.diffs.close(callId);
  }

  /**
   * Accept or Reject from the diff editor's title bar: answers the edit that diff shows, and only
   * it. Any other address (one made up to name some other pending call) is refused with a message.
   */
  resolveFromDiff(uri: vscode.Uri | undefined, approved: boolean): boolean {
    const callId = this.diffs.answerable(uri ?? vscode.window.activeTextEditor?.document.uri, (id) => this.approvals.get(id)?.kind);
    if (!callId) {
      const what = approved ? 'accepted' : 'rejected';
      this.log.warn(`${approved ? 'Accept' : 'Reject'} was asked for a document that is not the diff of an edit waiting for approval: ${uri?.toString(true) ?? '(no document)'}`);
      void vscode.window.showWarningMessage(`Tally: this is not the diff of an edit waiting for approval, so nothing was ${what}. Answer approvals from the chat or from the diff Tally opened.`);
      return false;
    }
    this.resolveApproval(callId, approved);
    return true;
  }

  onTrustChanged(): void {
    this.log.info('workspace trust changed: instructions reload on the next request');
  }
}

/** `tally.models.images` for this model, from the user's own settings: whether it takes images, when the user said so. */
function imagesSetting(model: string): { images?: boolean } {
  const said = userValue<Record<string, unknown>>(vscode.workspace.getConfiguration('tally'), 'models.images')?.[model];
  return typeof said === 'boolean' ? { images: said } : {};
}
