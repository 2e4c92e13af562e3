import * as vscode from 'vscode';
import { userValue } from '../config/userScope';
import { parsePriceOverrides } from '../core/providers/models/modelRegistry';
import { chatHeader } from '../host/chat/chatState';
import { ChatEntriesSent } from '../host/chat/chatEntriesPatch';
import { CHAT_PAGE_MESSAGES } from '../host/session/sessionView';
import { chatHandlers } from '../host/chat/chatIntents';
import { restoreTurnFiles, rewindToMessage } from '../host/chat/rewindFlow';
import type { SessionRewind } from '../session/sessionRewind';
import { RefreshQueue } from '../host/session/refreshQueue';
import { SessionListing } from '../host/session/sessionListing';
import type { SessionController } from '../session/sessionController';
import { isResumed, type ShownSession } from '../host/session/sessionPorts';
import type { HostToChat } from '../protocol/chat';
import { receiveWebviewMessage } from '../protocol/receive';
import { parseChatMessage } from '../protocol/validate';
import { webviewHtml, webviewRoots } from './webviewHtml';
import type { ChatAttachments } from '../attachments/chatAttachments';

/** The chat panel: a webview view in Tally's activity-bar container. */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'tally.chat';
  private view?: vscode.WebviewView;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer?: NodeJS.Timeout;
  private readonly handlers: ReturnType<typeof chatHandlers>;
  /** What the webview holds, so a refresh sends only the entries that changed. */
  private sent = new ChatEntriesSent();
  /** The session view whose entries the webview holds. */
  private sentView?: object;
  private sentPrices?: string;
  private listing?: SessionListing;
  /** The webview's "ready" and the session's changes each ask for a refresh: one runs at a time. */
  private readonly refreshes = new RefreshQueue((whole) => this.sendStateNow({ whole }));

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: SessionController,
    private readonly log: vscode.LogOutputChannel,
    private readonly attachments?: ChatAttachments,
    private readonly rewind?: SessionRewind,
  ) {
    if (attachments) attachments.post = (message) => this.post(message);
    const askModal = (message: string, detail: string, choices: string[]) => vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices);
    const ports = rewind?.ports({ askModal, editText: (text) => this.post({ type: 'editText', text }) });
    this.handlers = chatHandlers({
      attachments: attachments?.deps(),
      rewind: ports && { restoreFiles: (messageId) => restoreTurnFiles(ports, messageId), rewind: (messageId) => rewindToMessage(ports, messageId) },
      sessions,
      executeCommand: (command, ...args) => vscode.commands.executeCommand(command, ...args),
      sendState: () => this.sendState({ whole: true }),
      scheduleRefresh: () => this.scheduleRefresh(),
      showEarlier: async () => {
        const session = await this.sessions.showing();
        // Older messages go before those held: the entries are folded again, so the webview gets them whole.
        if (await session.view.showEarlier(CHAT_PAGE_MESSAGES)) await this.sendState({ whole: true });
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
    sessions.setChatWillShow(() => Boolean(this.view?.visible));
    this.disposables.push(
      sessions.onDidChange(() => this.scheduleRefresh()),
      ...(rewind ? [rewind.onDidChange(() => this.scheduleRefresh())] : []),
      sessions.onAgentEvent((event) => {
        if (event.type === 'text_delta') this.post({ type: 'delta', entryId: 'streaming', text: event.text });
        if (event.type === 'approval_needed' && !this.view?.visible) void this.offerToShowApproval(event.request.kind);
      }),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = webviewHtml(view.webview, this.extensionUri, 'chat', 'Tally Chat');
    view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw), undefined, this.disposables);
    view.onDidChangeVisibility(() => view.visible && this.scheduleRefresh(), undefined, this.disposables);
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

  scheduleRefresh(): void {
    if (this.refreshTimer || !this.view) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.sendState();
    }, 100);
  }

  /**
   * Sends the chat's state. After the first send only the entries that changed travel: the
   * session view folds each write into the entries as it happens, so a refresh reads nothing and
   * costs about the same at 10 and at 10,000 messages. `whole`: the webview (re)loaded.
   */
  private sendState(options: { whole?: boolean } = {}): Promise<void> {
    return this.refreshes.request(options.whole);
  }

  private async sendStateNow(options: { whole?: boolean }): Promise<void> {
    let session: ShownSession | undefined;
    try {
      // The session as shown, possibly still resuming: its newest messages show while its context is counted.
      session = await this.sessions.showing();
      const { view } = session;
      // Prices are read from user settings only: a workspace must not change what a turn is said to cost.
      const priceOverrides = parsePriceOverrides(userValue(vscode.workspace.getConfiguration('tally'), 'modelPrices'));
      const prices = JSON.stringify(priceOverrides);
      if (this.sentPrices !== undefined && prices !== this.sentPrices) view.setPrices(priceOverrides);
      this.sentPrices = prices;
      const store = await this.sessions.store();
      if (this.listing?.store !== store) {
        this.listing?.dispose();
        this.listing = new SessionListing(store);
      }
      // The chat (re)loaded: other windows may have changed the list since it was read.
      if (options.whole) this.listing.stale();
      const extras = {
        live: this.sessions.live,
        ended: this.sessions.endedTurnNotices,
        pending: this.sessions.pendingMessage,
        waiting: this.sessions.waitingMessages,
        compacting: this.sessions.compacting,
        canRetry: this.sessions.canRetry,
      };
      const whole = options.whole || this.sentView !== view;
      if (whole) this.sent = new ChatEntriesSent();
      this.sentView = view;
      const turnFiles = this.rewind ? await this.rewind.turnFilesOf(session.info.id) : [];
      const state = { ...chatHeader({ session, sessions: await this.listing.sessions(), earlierUnloaded: view.earlierUnloaded, usage: view.usageFigures, ...extras }), ...(turnFiles.length ? { turnFiles } : {}) };
      if (whole) {
        this.post({ type: 'state', state: { ...state, entries: this.sent.whole(view.chat, extras) } });
        if (isResumed(session)) session.contextSession.loadEncoder(); // now that the session shows, for the next message to count
      } else this.post({ type: 'update', state, patch: this.sent.change(view.chat, extras) });
      // The cost line follows the meter (once the session resumed); the chips follow the session.
      if (isResumed(session)) await this.attachments?.refreshComposer();
    } catch (error) {
      this.log.error(`chat: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      // A state that could not be posted does not hold the session's resume.
      if (session) this.sessions.firstStateShown(session);
    }
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
        this.scheduleRefresh();
      },
    });
  }

  dispose(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.listing?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
