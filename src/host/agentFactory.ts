import { promises as fsp } from 'fs';
import { homedir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import { getTokenCounter } from '../core/accounting/tokenizer';
import { AgentSession } from '../core/agent/agentSession';
import { BasicPromptSource } from '../core/agent/basicPrompt';
import { SessionToolRunner } from '../core/agent/sessionTools';
import { WorkspaceToolRunner } from '../core/agent/workspaceToolRunner';
import { workspaceTools } from '../core/tools/builtinTools';
import type { ApprovalDecision } from '../core/tools/types';
import type { ContextManager, FixedComponents } from '../core/compaction/contextManager';
import type { SessionStore } from '../core/persistence/types';
import type { TallyConfiguration } from '../config/readSettings';
import type { ChatModel } from './modelService';

const INSTRUCTIONS_CAP = 32 * 1024;

export interface LoadedInstructions {
  files: Array<{ path: string; bytes: number; status: 'loaded' | 'cut' | 'skipped'; reason?: string }>;
  text: string;
}

/** Wires an agent for a session: prompt (with AGENTS.md), tools, approvals. */
export class AgentFactory {
  lastInstructions?: LoadedInstructions;
  private readonly approvals = new Map<string, (approved: boolean) => void>();

  constructor(private readonly context: vscode.ExtensionContext, private readonly log: vscode.LogOutputChannel) {}

  /** F15 (partial): the user's ~/.tally/AGENTS.md and each workspace folder's root AGENTS.md, capped; none from an untrusted workspace. */
  async loadInstructions(): Promise<LoadedInstructions> {
    const candidates = [join(homedir(), '.tally', 'AGENTS.md')];
    const trusted = vscode.workspace.isTrusted;
    for (const folder of vscode.workspace.workspaceFolders ?? []) candidates.push(join(folder.uri.fsPath, 'AGENTS.md'));
    const files: LoadedInstructions['files'] = [];
    const parts: string[] = [];
    let used = 0;
    for (const [index, path] of candidates.entries()) {
      const stat = await fsp.stat(path).catch(() => undefined);
      if (!stat?.isFile()) continue;
      if (index > 0 && !trusted) {
        files.push({ path, bytes: stat.size, status: 'skipped', reason: 'the workspace is not trusted' });
        continue;
      }
      const room = INSTRUCTIONS_CAP - used;
      if (room <= 0) {
        files.push({ path, bytes: stat.size, status: 'skipped', reason: 'the 32 KiB cap was reached' });
        continue;
      }
      const handle = await fsp.open(path, 'r');
      try {
        const buffer = Buffer.alloc(Math.min(room, stat.size));
        await handle.read(buffer, 0, buffer.length, 0);
        if (buffer.includes(0)) {
          files.push({ path, bytes: stat.size, status: 'skipped', reason: 'binary file' });
          continue;
        }
        const text = buffer.toString('utf8');
        const cut = stat.size > buffer.length;
        parts.push(`# ${vscode.workspace.asRelativePath(path)}\n${text}${cut ? `\n[… AGENTS.md cut at the 32 KiB cap: ${stat.size - buffer.length} bytes not loaded …]` : ''}`);
        used += buffer.length;
        files.push({ path, bytes: stat.size, status: cut ? 'cut' : 'loaded' });
      } catch (error) {
        files.push({ path, bytes: stat.size, status: 'skipped', reason: `unreadable: ${(error as Error).message}` });
      } finally {
        await handle.close();
      }
    }
    this.lastInstructions = { files, text: parts.join('\n\n') };
    return this.lastInstructions;
  }

  async create(args: { manager: ContextManager; chat: ChatModel; config: TallyConfiguration; store: SessionStore; onFixed(fixed: FixedComponents): void }): Promise<AgentSession> {
    const counter = getTokenCounter(args.chat.model.encoding);
    let fixedNow: FixedComponents = { system: 0, skills: 0, tools: 0 };
    const sessionTools = new SessionToolRunner(args.store, () => args.manager, () => fixedNow);
    const builtins = workspaceTools();
    const tools = new WorkspaceToolRunner(
      builtins,
      () => ({ folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), trusted: vscode.workspace.isTrusted }),
      () => args.config.approval,
      (request) => new Promise<ApprovalDecision>((resolve) => this.approvals.set(request.callId, (ok) => resolve(ok ? 'approved' : 'denied'))),
      { commandTimeoutMs: args.config.commandTimeoutMs, maxCommandOutputBytes: 8 * 1024 * 1024, maxReadBytes: 2 * 1024 * 1024 },
      {
        readResult: async () => 'use the read_result tool',
        compact: async () => 'use the compact_context tool',
        searchTools: async () => 'no tools are deferred',
        activateSkill: async () => 'skills are not available yet',
      },
      sessionTools,
    );
    const definitions = () => [...builtins.map((t) => t.definition), ...SessionToolRunner.definitions()];
    const prompt = new BasicPromptSource(counter, args.config.context, definitions, async () => (await this.loadInstructions()).text);
    const source = {
      prepare: async (p: { effectiveWindow: number; percentUsed: number }) => {
        const prepared = await prompt.prepare(p);
        fixedNow = prepared.fixed;
        args.onFixed(prepared.fixed);
        return prepared;
      },
    };
    return new AgentSession({ manager: args.manager, provider: args.chat.provider, model: args.chat.model.id, maxOutputTokens: args.chat.maxOutputTokens, prompt: source, tools });
  }

  resolveApproval(callId: string, approved: boolean): void {
    this.approvals.get(callId)?.(approved);
    this.approvals.delete(callId);
  }

  onTrustChanged(): void {
    this.log.info('workspace trust changed: instructions reload on the next request');
  }
}
