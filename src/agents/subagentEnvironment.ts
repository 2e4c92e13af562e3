import { homedir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import type { TokenCounter } from '../core/accounting/tokenizer';
import { DelegateTool } from '../core/agent/subagents/delegateTool';
import type { NamedAgent } from '../core/agent/subagents/namedAgents';
import type { InstructionPart } from '../core/prompt/promptSections';
import type { SessionStore } from '../core/ports/sessionStore';
import { ContextSession } from '../core/context/contextSession';
import { builtinTools } from '../core/tools/builtin';
import type { ToolRegistryOptions } from '../core/tools/registry';
import type { Tool } from '../core/tools/types';
import { sessionTools } from '../core/tools/sessionTools';
import type { TallyConfiguration } from '../config/readSettings';
import type { ChatModel } from '../host/sessionState/sessionPorts';
import { loadAgents } from '../node/prompt/agentFiles';
import { lmTools } from '../vscodeLm/lmTools';

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

/** The delegation tool of a chat session: subagents with the session's provider, store, approvals and the user's limits. */
export function delegateTool(args: {
  contextSession: ContextSession;
  chat: ChatModel;
  config: TallyConfiguration;
  store: SessionStore;
  counter: TokenCounter;
  registry: ToolRegistryOptions;
  agents: () => Promise<NamedAgent[]>;
  instructions: () => Promise<readonly InstructionPart[]>;
  /** The user's current tool choice, applied to a list of tools. */
  chosen: (tools: readonly Tool[]) => Tool[];
}): DelegateTool {
  const { chat, config, store } = args;
  return new DelegateTool({
    store,
    parentSessionId: () => args.contextSession.sessionId,
    provider: chat.provider,
    model: chat.model.id,
    maxOutputTokens: chat.maxOutputTokens,
    // A named agent may only pick a model the user chose for this provider (never another endpoint).
    modelAllowed: (model) => model === chat.model.id || (config.summaryModel !== '' && model === config.summaryModel),
    counter: args.counter,
    settings: config.context,
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
    tools: (session) => [...builtinTools(), ...sessionTools(store, () => session), ...lmTools()],
    chosen: args.chosen,
    registry: args.registry,
    agents: args.agents,
    instructions: args.instructions,
    ...(chat.reasoning ? { reasoning: chat.reasoning } : {}),
    limits: () => config.subagents,
  });
}
