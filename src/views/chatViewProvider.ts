import * as vscode from 'vscode';
import { userValue } from '../config/userScope';
import { parsePriceOverrides } from '../core/providers/models/modelRegistry';
import { ChatFeed } from '../host/chat/chatFeed';
import { chatHandlers } from '../host/chat/chatIntents';
import { restoreTurnFiles, rewindToMessage } from '../host/chat/rewindFlow';
import { CHAT_PAGE_MESSAGES } from '../host/sessionState/sessionReads';
import type { SessionActions } from '../host/sessionState/sessionActions';
import type { SessionRewind } from '../workspace/sessionRewind';
import { SessionListing } from '../host/chat/sessionListing';
import type { SessionController } from '../lifecycle/sessionController';
import { isResumed } from '../host/sessionState/sessionPorts';
import type { HostToChat } from '../protocol/chat';
import { receiveWebviewMessage } from '../protocol/receive';
import { parseChatMessage } from '../protocol/validate';
import { webviewHtml, webviewRoots } from './webviewHtml';
import type { ChatAttachments } from '../attachments/chatAttachments';
import type { CommandCatalog } from '../core/commands/commandCatalog';

/**
 * The chat panel: a webview view in Tally's activity-bar container. A pipe: what its feed makes
 * of the shown session's state goes to the webview as it is made; what the webview asks goes
 * through the validated boundary to the chat's intents.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'tally.chat';
  private view?: vscode.WebviewView;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly handlers: ReturnType<typeof chatHandlers>;
  private readonly feed: ChatFeed;
  private listing?: SessionListing;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly lifecycle: SessionController,
    private readonly sessions: SessionActions,
    private readonly log: vscode.LogOutputChannel,
    private readonly attachments?: ChatAttachments,
    private readonly rewind?: SessionRewind,
    commands?: CommandCatalog,
  ) {
    if (attachments) attachments.post = (message) => this.post(message);
    this.feed = new ChatFeed({
      post: (message) => this.post(message),
      showing: () => lifecycle.showing(),
      sessions: (fresh) => this.sessionList(fresh),
      turnFiles: (sessionId) => (rewind ? rewind.turnFilesOf(sessionId) : Promise.resolve([])),
      firstStateShown: (session) => lifecycle.firstStateShown(session),
      // The cost line follows the meter (once the session resumed); the chips follow the session.
      shown: (session) => void (isResumed(session) && this.attachments?.refreshComposer().catch((error: Error) => log.warn(`chat: the composer could not be refreshed: ${error.message}`))),
      log: (message) => log.error(message),
    });
    const askModal = (message: string, detail: string, choices: string[]) => vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices);
    const ports = rewind?.ports({ askModal, editText: (text) => this.post({ type: 'editText', text }) });
    this.handlers = chatHandlers({
      attachments: attachments?.deps(),
      commands: commands && { catalog: commands, postList: (queryId, items) => this.post({ type: 'commandList', queryId, items }) },
      rewind: ports && { restoreFiles: (messageId) => restoreTurnFiles(ports, messageId), rewind: (messageId) => rewindToMessage(ports, messageId) },
      sessions,
      executeCommand: (command, ...args) => vscode.commands.executeCommand(command, ...args),
      sendState: () => this.feed.whole(true),
      showEarlier: async () => {
        await (await lifecycle.showing()).reads.showEarlier(CHAT_PAGE_MESSAGES);
      },
      workbench: {
        insertAtCursor: async (text) => {
          const editor = vscode.window.activeTextEditor;
          if (!editor) throw new Error('Open a file and place the cursor where the code should go, then choose Insert at cursor again.');
          const ok = await editor.edit((edit) => editor.selections.forEach((selection) => edit.replace(selection, text)));
          if (!ok) throw new Error('The editor did not accept the insertion.');
        },
        copyToClipboard: (text) => vscode.env.clipboard.writeText(text),
        askModal,
        openExternal: async (url) => {
          await vscode.env.openExternal(vscode.Uri.parse(url, true));
        },
      },
    });
    // A session shown before it resumes reads its whole transcript once this chat posted it, unless no chat shows.
    lifecycle.setChatWillShow(() => Boolean(this.view?.visible));
    this.disposables.push(
      lifecycle.onDidShow((session) => void (this.view && this.feed.show(session))),
      ...(rewind ? [rewind.onDidChange(() => void this.feed.turnFilesChanged())] : []),
      // Prices are read from user settings only: a workspace must not change what a turn is said to cost.
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tally.modelPrices')) lifecycle.shown?.state.apply({ kind: 'prices', prices: parsePriceOverrides(userValue(vscode.workspace.getConfiguration('tally'), 'modelPrices')) });
      }),
      lifecycle.onAgentEvent((event) => {
        if (event.type === 'approval_needed' && !this.view?.visible) void this.offerToShowApproval(event.request.kind);
      }),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = webviewHtml(view.webview, this.extensionUri, 'chat', 'Tally Chat');
    view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw), undefined, this.disposables);
    // Shown again: what it missed while hidden comes whole.
    view.onDidChangeVisibility(() => view.visible && void this.feed.whole(), undefined, this.disposables);
  }

  /** The sessions the header lists, read again after this window changed one (or when `fresh`). */
  private async sessionList(fresh: boolean) {
    const store = await this.lifecycle.store();
    if (this.listing?.store !== store) {
      this.listing?.dispose();
      this.listing = new SessionListing(store, () => void this.feed.sessionsChanged());
    }
    if (fresh) this.listing.stale();
    return this.listing.sessions();
  }

  /**
   * The chat is hidden while the agent waits for an answer: say so, without the request's own text
   * (the card shows it with hidden characters made visible), and offer to show the card.
   */
  private async offerToShowApproval(kind: 'command' | 'edit' | 'read' | 'other'): Promise<void> {
    const what = { command: 'run a command', edit: 'change a file', read: 'read a file', other: 'use a tool' }[kind];
    const choice = await vscode.window.showInformationMessage(`Tally is waiting for your approval to ${what}.`, 'Show in Chat');
    if (choice === 'Show in Chat') await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  private post(message: HostToChat): void {
    if (this.view) void this.view.webview.postMessage(message);
  }

  /** Every message from the webview goes through the validated boundary: invalid ones are logged and dropped (the extension-host tests post here too). */
  receive(raw: unknown): Promise<unknown> {
    return receiveWebviewMessage(raw, {
      source: 'chat',
      parse: parseChatMessage,
      log: this.log,
      handlers: this.handlers,
      onError: (error) => {
        void vscode.window.showErrorMessage(`Tally: ${error instanceof Error ? error.message : String(error)}`);
        // What failed may have left the webview with what it showed before: it gets the state again.
        void this.feed.whole();
      },
    });
  }

  dispose(): void {
    this.feed.dispose();
    this.listing?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
