import './node/usePlatform';
import { workspaceCommandCatalog } from './workspace/slashCommands';
import type { CommandCatalog } from './core/commands/commandCatalog';
import * as vscode from 'vscode';
import { compactContextCommand } from './commands/compactContext';
import { exportSessionCommand } from './commands/exportSession';
import { setApiKeyCommand } from './commands/modelCommands';
import { reopenWithoutModel, selectModelCommand } from './commands/selectModel';
import { searchSessionsCommand } from './commands/searchSessions';
import { resumeSessionCommand } from './commands/sessionCommands';
import { forkFromRequestCommand } from './commands/forkFromRequest';
import { openRequestItemCommand, openResultCommand, openSummaryCommand } from './commands/openDocuments';
import { openDemoReplayCommand, openTranscriptCommand } from './commands/transcriptCommands';
import { AgentFactory } from './agents/agentFactory';
import { EditorMcp } from './mcp/editorMcp';
import { SessionController } from './lifecycle/sessionController';
import { SessionActions } from './host/sessionState/sessionActions';
import { SessionStoreHost } from './lifecycle/sessionStoreHost';
import { SessionRewind } from './workspace/sessionRewind';
import { ApiKeys } from './secrets/apiKeys';
import { ContextMeter } from './views/contextMeter';
import { ReadOnlyDocuments } from './views/readOnlyDocuments';
import { ChatViewProvider } from './views/chatViewProvider';
import { InspectorPanel } from './views/inspectorPanel';
import { showLoadedInstructions } from './commands/showInstructions';
import { configureToolsCommand } from './commands/configureTools';
import { addFileCommand, addSelectionCommand } from './commands/attachCommands';
import { ChatAttachments } from './attachments/chatAttachments';
import { sessionSandbox } from './sandbox/sandboxSettings';
import { SandboxStatusBar } from './sandbox/sandboxStatusBar';
import { stopSpawner, useSpawner } from './node/spawner/processStarts';

/** What the extension-host tests reach through `activate()`'s return value. */
export interface TallyApi {
  /** What the user does to the open session (and which session that is). */
  sessions: SessionActions;
  /** Opening, resuming and reopening sessions. */
  lifecycle: SessionController;
  agents: AgentFactory;
  /** The MCP servers Tally runs itself (the tests start them and read their tools). */
  mcp: EditorMcp;
  /** The chips above the chat's input (the attachment tests read them). */
  attachments: ChatAttachments;
  /** The chat view: what its webview posts goes through `receive`. */
  chat: ChatViewProvider;
  /** The chat's slash commands: what its `/` list offers (the MCP test reads it). */
  commands: CommandCatalog;
  keys: ApiKeys;
  /** Checkpoints, restore and rewind (the tests answer the confirmations themselves). */
  rewind: SessionRewind;
  /** Where VS Code keeps this extension's logs and global state (the key-leak test searches them). */
  folders: { log: string; globalStorage: string };
}

/**
 * Activation only wires things up: the tokenizer's ranks and the database load on first use,
 * so starting VS Code costs nothing noticeable. sql.js is compiled meanwhile in a worker thread
 * (the code it compiles is the extension host's too), so the first session opened waits less for it.
 */
export function activate(context: vscode.ExtensionContext): TallyApi {
  const log = vscode.window.createOutputChannel('Tally', { log: true });
  const storeHost = new SessionStoreHost(context, log);
  storeHost.warmUp();
  // Hooks and commands start through a small process of their own, started at the first of them: a fork of this one holds its thread ~100 ms each.
  useSpawner({ file: process.execPath, args: [vscode.Uri.joinPath(context.extensionUri, 'dist', 'spawner.js').fsPath] });
  const keys = new ApiKeys(context.secrets);
  const mcp = new EditorMcp(context, log);
  const agents = new AgentFactory(context, log, mcp);
  const lifecycle = new SessionController(storeHost, keys, agents, log, context.workspaceState);
  const sessions = new SessionActions(lifecycle, agents, log);
  const rewind = new SessionRewind(context.globalStorageUri.fsPath, sessions, log);
  agents.useCheckpoints((workspace) => rewind.wrap(workspace));
  const docs = new ReadOnlyDocuments();
  const attachments = new ChatAttachments(sessions, docs, mcp.resourceAttachments, agents.web);
  const commands = workspaceCommandCatalog(mcp.promptSource);
  const chat = new ChatViewProvider(context.extensionUri, lifecycle, sessions, log, attachments, rewind, commands);
  const meter = new ContextMeter(lifecycle);
  const sandboxStatus = new SandboxStatusBar(sessionSandbox(context.globalStorageUri));
  const run = <T>(task: () => Promise<T>) => async (): Promise<T | undefined> => {
    try {
      return await task();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.error(message);
      void vscode.window.showErrorMessage(`Tally: ${message}`);
      return undefined;
    }
  };

  context.subscriptions.push(
    { dispose: stopSpawner },
    log,
    mcp,
    storeHost,
    lifecycle,
    sessions,
    attachments,
    rewind,
    chat,
    meter,
    sandboxStatus,
    docs,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat),
    vscode.commands.registerCommand('tally.ping', () => 'pong'),
    vscode.commands.registerCommand('tally.acceptEdit', (uri?: vscode.Uri) => agents.resolveFromDiff(uri, true)),
    vscode.commands.registerCommand('tally.rejectEdit', (uri?: vscode.Uri) => agents.resolveFromDiff(uri, false)),
    vscode.commands.registerCommand('tally.compactContext', (focus?: string) => run(() => compactContextCommand(sessions, typeof focus === 'string' ? focus : undefined))()),
    vscode.commands.registerCommand('tally.openInspector', () => run(async () => {
      InspectorPanel.show(context.extensionUri, lifecycle, sessions, log);
      return true;
    })()),
    vscode.commands.registerCommand('tally.newSession', () => run(async () => (await sessions.create()).info.id)()),
    // Returns whether plan mode is on now (tests read it); the chat's toolbar shows it.
    vscode.commands.registerCommand('tally.togglePlanMode', () => run(() => sessions.togglePlanMode())()),
    vscode.commands.registerCommand('tally.resumeSession', (id?: string) => run(() => resumeSessionCommand(sessions, typeof id === 'string' ? id : undefined))()),
    vscode.commands.registerCommand('tally.searchSessions', (query?: string) => run(() => searchSessionsCommand(sessions, typeof query === 'string' ? query : undefined))()),
    vscode.commands.registerCommand('tally.selectModel', () => run(() => selectModelCommand(lifecycle, keys))()),
    vscode.commands.registerCommand('tally.setApiKey', (args?: Parameters<typeof setApiKeyCommand>[1]) => run(() => setApiKeyCommand(keys, args))()),
    vscode.commands.registerCommand('tally.showLoadedInstructions', () => run(() => showLoadedInstructions(agents, docs))()),
    vscode.commands.registerCommand('tally.configureTools', (args?: { picked: string[] }) => run(() => configureToolsCommand(agents, args))()),
    vscode.commands.registerCommand('tally.exportSession', (args?: Parameters<typeof exportSessionCommand>[2]) => run(() => exportSessionCommand(sessions, docs, args))()),
    vscode.commands.registerCommand('tally.openTranscript', (file?: string) => run(() => openTranscriptCommand(lifecycle, typeof file === 'string' ? file : undefined))()),
    vscode.commands.registerCommand('tally.openDemoReplay', () => run(() => openDemoReplayCommand(lifecycle, context.extensionUri))()),
    vscode.commands.registerCommand('tally.openResult', (refId: string) => run(() => openResultCommand(sessions, docs, refId))()),
    vscode.commands.registerCommand('tally.openSummary', (compactionId: string) => run(() => openSummaryCommand(sessions, docs, compactionId))()),
    vscode.commands.registerCommand('tally.forkFromRequest', (sessionId: unknown, requestIndex: unknown) => run(() => forkFromRequestCommand(sessions, sessionId, requestIndex))()),
    vscode.commands.registerCommand('tally.openRequestItem', (requestIndex: number | undefined, position: number) => run(() => openRequestItemCommand(sessions, docs, requestIndex, position))()),
    vscode.commands.registerCommand('tally.statusBarShown', () => meter.shown),
    vscode.commands.registerCommand('tally.sandboxStatusShown', () => sandboxStatus.shown()),
    vscode.commands.registerCommand('tally.addSelectionToChat', () => run(() => addSelectionCommand(attachments))()),
    vscode.commands.registerCommand('tally.addFileToChat', (clicked?: unknown, selected?: unknown) => run(() => addFileCommand(attachments, clicked, selected))()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('tally')) lifecycle.reopenActive('settings');
    }),
    keys.onDidChange(() => lifecycle.reopenActive('key')),
    // A model registered after the session opened (Copilot signs in later): a session still without one takes it at once.
    ...(vscode.lm?.onDidChangeChatModels ? [vscode.lm.onDidChangeChatModels(() => reopenWithoutModel(lifecycle))] : []),
    vscode.workspace.onDidGrantWorkspaceTrust(() => agents.onTrustChanged()),
  );
  return { sessions, lifecycle, agents, mcp, keys, attachments, chat, commands, rewind, folders: { log: context.logUri.fsPath, globalStorage: context.globalStorageUri.fsPath } };
}

export function deactivate(): void {
  // Disposables (including the store's final flush) run through context.subscriptions.
}
