import { homedir } from 'os';
import * as vscode from 'vscode';
import { userValue } from '../config/userScope';
import type { ToolSource } from '../core/agent/build/agentBuild';
import { configuredMcpServers, type WorkspaceMcpFile } from '../core/mcp/configuredServers';
import { McpServers, type McpServerStatus } from '../core/mcp/mcpServers';
import { mcpToolSource } from '../core/mcp/mcpToolSource';
import type { McpPromptSource } from '../core/mcp/promptSource';
import type { ResourceAttachments } from '../core/mcp/resourceSource';
import type { McpServerConfig } from '../core/mcp/serverConfig';
import { mcpStartGate } from '../core/mcp/startGate';
import { DEFAULT_MCP_LIMITS, sdkConnector } from '../node/mcp/sdkConnection';
import { editorStartDecisions } from './mcpStartPrompt';

/**
 * The MCP servers Tally runs in the editor: the user's `tally.mcp.servers` and, in a trusted
 * workspace, each folder's `.vscode/mcp.json`. Activation only wires this up; the list is read and
 * the servers start in the background when a session first builds its agent, and a turn never
 * waits for them (their tools join the next request once listed). A server that fails or is not
 * allowed is reported once, by name, in a notification and in the log.
 */
export class EditorMcp implements vscode.Disposable {
  readonly servers: McpServers;
  readonly toolSource: ToolSource;
  private list: McpServerConfig[] = [];
  private loaded: Promise<void> | undefined;
  private readonly reported = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(context: vscode.ExtensionContext, private readonly log: vscode.LogOutputChannel) {
    this.servers = new McpServers(() => this.list, sdkConnector(DEFAULT_MCP_LIMITS), mcpStartGate(editorStartDecisions(context.workspaceState)));
    this.toolSource = mcpToolSource(this.servers);
    const watcher = vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json');
    const reload = () => {
      if (this.loaded) void this.readAgain();
    };
    this.disposables.push(
      watcher,
      watcher.onDidChange(reload),
      watcher.onDidCreate(reload),
      watcher.onDidDelete(reload),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('tally.mcp') && reload()),
      vscode.workspace.onDidGrantWorkspaceTrust(reload),
      vscode.workspace.onDidChangeWorkspaceFolders(reload),
      this.servers.onDidChange(() => this.reportProblems(this.servers.status())),
    );
  }

  /**
   * The prompts of the servers running now, for the chat's `/` list: it never waits for a server to
   * start (asking starts them in the background, so a later list has them).
   */
  readonly promptSource: McpPromptSource = {
    listPrompts: () => {
      this.startInBackground();
      return this.servers.listedPromptSource.listPrompts();
    },
    getPrompt: (server, name, args, signal) => this.servers.getPrompt(server, name, args, signal),
  };

  /** The resources of the servers running now, for the chat's `#` list (listing starts the servers in the background). */
  readonly resourceAttachments: ResourceAttachments = {
    listed: () => {
      this.startInBackground();
      return this.servers.listedResources();
    },
    read: (server, uri) => this.servers.readResource(server, uri),
  };

  /** Reads the configuration once and starts its servers in the background; returns at once. */
  startInBackground(): void {
    if (!this.loaded) void this.readAgain();
  }

  /** Reads the configuration as it is now and starts its servers; resolves when each has started or failed. */
  async startAll(): Promise<McpServerStatus[]> {
    await this.readAgain();
    return this.servers.startAll();
  }

  /** One read at a time, each after the one before: a settings change never races a read already under way. */
  private readAgain(): Promise<void> {
    const next = (this.loaded ?? Promise.resolve()).then(() => this.reload());
    this.loaded = next.catch((error: unknown) => this.log.error(`MCP servers: ${error instanceof Error ? error.message : String(error)}`));
    return this.loaded;
  }

  private async reload(): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const workspaceFiles: WorkspaceMcpFile[] = await Promise.all(
      folders.map(async (folder) => {
        const uri = vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
        let text: string | undefined;
        // An untrusted workspace's file is only noticed, never read.
        try {
          if (vscode.workspace.isTrusted) text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
          else text = (await vscode.workspace.fs.stat(uri)) ? '' : undefined;
        } catch {
          text = undefined;
        }
        return { file: uri.fsPath, text, folder: folder.uri.fsPath };
      }),
    );
    const parsed = configuredMcpServers({
      user: userValue<unknown>(vscode.workspace.getConfiguration('tally'), 'mcp.servers'),
      workspaceFiles,
      trusted: vscode.workspace.isTrusted,
      vars: { workspaceFolder: folders[0]?.uri.fsPath, userHome: homedir(), env: process.env },
    });
    for (const problem of parsed.problems) this.report(problem);
    this.list = parsed.servers;
    await this.servers.reconcile();
    this.servers.startInBackground();
  }

  private reportProblems(status: McpServerStatus[]): void {
    for (const s of status) if ((s.state === 'failed' || s.state === 'not allowed') && s.message) this.report(s.message);
  }

  private report(message: string): void {
    if (this.reported.has(message)) return;
    this.reported.add(message);
    this.log.warn(message);
    void vscode.window.showWarningMessage(`Tally: ${message}`);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    void this.servers.dispose();
  }
}
