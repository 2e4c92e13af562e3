import { homedir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import { getTokenCounter } from '../core/accounting/tokenizer';
import { loadInstructions, type InstructionsReport } from '../node/prompt/agentsMd';
import { SessionPrompt } from '../core/prompt/sessionPrompt';
import { loadSkills, skillText, type SkillsReport } from '../node/prompt/skillFiles';
import { LmToolsRunner, lmToolDefinitions, userAllowedTools } from '../providers/lmToolsRunner';
import { EXTERNAL_TOOLS_RESTRICTED, ExternalToolGate, type ApprovalAnswer } from '../core/tools/externalToolGate';
import type { ApprovalRequest } from '../core/tools/types';
import { onCallIdRepair } from '../core/history/repairCallIds';
import { AgentSession } from '../core/agent/agentSession';
import { SessionToolRunner } from '../core/agent/sessionTools';
import { WorkspaceToolRunner } from '../node/tools/workspaceToolRunner';
import { workspaceTools } from '../node/tools/builtinTools';
import type { ApprovalDecision } from '../core/tools/types';
import type { FixedComponents } from '../core/accounting/usageBasis';
import type { ContextSession } from '../core/session/contextSession';
import type { SessionStore } from '../core/ports/sessionStore';
import { readConfiguration, type TallyConfiguration } from '../config/readSettings';
import type { ToolRunner, ToolRunResult } from '../core/agent/toolRunner';
import type { ToolCall } from '../core/model/message';
import type { ChatModel } from './modelService';


/** Wires an agent for a session: prompt (with AGENTS.md), tools, approvals. */
export class AgentFactory {
  lastInstructions?: InstructionsReport;
  private readonly approvals = new Map<string, (answer: ApprovalAnswer) => void>();
  private readonly loggedSkips = new Set<string>();

  constructor(private readonly context: vscode.ExtensionContext, private readonly log: vscode.LogOutputChannel) {
    context.subscriptions.push({
      dispose: onCallIdRepair((sessionId, renamed) =>
        log.warn(`session ${sessionId}: repaired ${renamed.length} repeated tool-call id(s) on load (${renamed.map((r) => `${r.from || '(empty)'} → ${r.to}`).join(', ')})`),
      ),
    });
  }

  /** AGENTS.md files: the user's ~/.tally/AGENTS.md, every folder root, nested files down to the active file; none from an untrusted workspace. */
  async loadInstructions(): Promise<InstructionsReport> {
    this.lastInstructions = await loadInstructions({
      userFile: join(homedir(), '.tally', 'AGENTS.md'),
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      activeFile: vscode.window.activeTextEditor?.document.uri.scheme === 'file' ? vscode.window.activeTextEditor.document.uri.fsPath : undefined,
      trusted: vscode.workspace.isTrusted,
    });
    return this.lastInstructions;
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

  async create(args: { manager: ContextSession; chat: ChatModel; config: TallyConfiguration; store: SessionStore; onFixed(fixed: FixedComponents): void }): Promise<AgentSession> {
    const counter = getTokenCounter(args.chat.model.encoding);
    let fixedNow: FixedComponents = { system: 0, skills: 0, tools: 0 };
    const gate = new ExternalToolGate({ trusted: () => vscode.workspace.isTrusted, allowedByUser: userAllowedTools, ask: (request) => this.ask(request) });
    const sessionTools = new SessionToolRunner(args.store, () => args.manager, () => fixedNow, new LmToolsRunner(gate));
    const builtins = workspaceTools();
    const tools = this.workspaceRunner(args.config, sessionTools);
    const definitions = () => [...builtins.map((t) => t.definition), ...SessionToolRunner.definitions(), ...gate.offered(lmToolDefinitions())];
    const prompt = new SessionPrompt(
      {
        counter,
        settings: args.config.context,
        tools: definitions,
        instructions: async () => (await this.loadInstructions()).parts,
        skills: async () => (await this.loadSkills()).skills,
        skillText: (skill) => skillText(skill),
        toolSearchNote: () => (!vscode.workspace.isTrusted && lmToolDefinitions().length ? EXTERNAL_TOOLS_RESTRICTED : undefined),
      },
      tools,
    );
    const source = {
      prepare: async (p: { effectiveWindow: number; percentUsed: number }) => {
        const prepared = await prompt.prepare(p);
        fixedNow = prepared.fixed;
        args.onFixed(prepared.fixed);
        return prepared;
      },
    };
    return new AgentSession({ manager: args.manager, provider: args.chat.provider, model: args.chat.model.id, maxOutputTokens: args.chat.maxOutputTokens, prompt: source, tools: prompt });
  }

  /** Workspace tools with the live workspace folders and trust, approvals through the chat panel. */
  private workspaceRunner(config: TallyConfiguration, next?: ToolRunner): WorkspaceToolRunner {
    return new WorkspaceToolRunner(
      workspaceTools(),
      () => ({ folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), trusted: vscode.workspace.isTrusted }),
      () => config.approval,
      async (request): Promise<ApprovalDecision> => ((await this.ask(request)).approved ? 'approved' : 'denied'),
      { commandTimeoutMs: config.commandTimeoutMs, maxCommandOutputBytes: 8 * 1024 * 1024, maxReadBytes: 2 * 1024 * 1024 },
      {
        readResult: async () => 'use the read_result tool',
        compact: async () => 'use the compact_context tool',
        searchTools: async () => 'use the tool_search tool',
        activateSkill: async () => 'use the activate_skill tool',
      },
      next,
    );
  }

  /** Runs one workspace tool call outside a chat turn (used by the extension-host tests and diagnostics). */
  runWorkspaceTool(call: ToolCall): Promise<ToolRunResult> {
    return this.workspaceRunner(readConfiguration()).run(call, { signal: new AbortController().signal, onApprovalNeeded: () => undefined, onApprovalResolved: () => undefined });
  }

  /** Waits for the chat panel's answer to an approval card. */
  private ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    return new Promise((resolve) => this.approvals.set(request.callId, resolve));
  }

  resolveApproval(callId: string, approved: boolean, forSession = false): void {
    this.approvals.get(callId)?.({ approved, forSession: approved && forSession });
    this.approvals.delete(callId);
  }

  onTrustChanged(): void {
    this.log.info('workspace trust changed: instructions reload on the next request');
  }
}
