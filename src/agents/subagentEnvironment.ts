import { homedir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import type { TokenCounter } from '../core/accounting/tokenizer';
import type { SubagentSetup } from '../core/agent/build/agentBuild';
import type { NamedAgent } from '../core/agent/subagents/namedAgents';
import type { SessionStore } from '../core/ports/sessionStore';
import { ContextSession } from '../core/context/contextSession';
import type { TallyConfiguration } from '../config/readSettings';
import type { ChatModel } from '../host/sessionState/sessionPorts';
import { loadAgents } from '../node/prompt/agentFiles';

/** Named agents from every workspace folder's `.tally/agents` (trusted workspaces only) and ~/.tally/agents; skipped files are logged once. */
export async function workspaceAgents(log: vscode.LogOutputChannel, logged: Set<string>): Promise<NamedAgent[]> {
  const report = await loadAgents({
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    userAgentsFolder: join(homedir(), '.tally', 'agents'),
    trusted: vscode.workspace.isTrusted,
  });
  for (const skip of report.skipped) {
    const key = `${skip.path}\n${skip.reason}`;
    if (logged.has(key)) continue;
    logged.add(key);
    log.warn(`agent file skipped: ${skip.path}: ${skip.reason}`);
  }
  return report.agents;
}

/** A chat session's subagents: the user's limits, the workspace's named agents, the session's window rules and summarizer. */
export function chatSubagents(args: { chat: ChatModel; config: TallyConfiguration; store: SessionStore; counter: TokenCounter; agents: () => Promise<NamedAgent[]> }): SubagentSetup {
  const { chat, config, store } = args;
  return {
    limits: () => config.subagents,
    agents: args.agents,
    // A named agent may only pick a model the user chose for this provider (never another endpoint).
    modelAllowed: (model) => model === chat.model.id || (config.summaryModel !== '' && model === config.summaryModel),
    openContext: (sessionId) =>
      ContextSession.open({
        store,
        sessionId,
        settings: config.context,
        counter: args.counter,
        summarizer: chat.summarizer,
        contextWindow: (chat.window.source === 'assumed' ? undefined : chat.model.contextWindow) ?? config.context.contextWindow,
        maxOutputTokens: chat.maxOutputTokens,
      }),
  };
}
