import * as vscode from 'vscode';
import { userValue } from '../config/userScope';
import { parsePriceOverrides } from '../core/providers/modelRegistry';
import { buildChatState, ChatEntryMemo } from '../host/chat/chatState';
import { SentChatEntries } from '../host/chat/chatEntriesPatch';
import { chatHandlers } from '../host/chat/chatIntents';
import { RefreshQueue } from '../host/session/refreshQueue';
import type { SessionController } from '../session/sessionController';
import type { HostToChat } from '../protocol/chat';
import { receiveWebviewMessage } from '../protocol/receive';
import { parseChatMessage } from '../protocol/validate';
import { webviewHtml, webviewRoots } from './webviewHtml';

/** The chat opens with about this many of a session's newest messages, and shows earlier ones this many at a time. */
const CHAT_PAGE_MESSAGES = 200;

/** The chat panel: a webview view in Tally's activity-bar container. */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'tally.chat';
  private view?: vscode.WebviewView;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer?: NodeJS.Timeout;
  private readonly handlers: ReturnType<typeof chatHandlers>;
  /** What the webview holds, so a refresh sends only the entries that changed. */
  private readonly sent = new SentChatEntries();
  private memo = new ChatEntryMemo();
  private sentSession?: string;
  /** How many of each session's newest messages the chat shows: a page more each time earlier ones are asked for. */
  private readonly shownMessages = new Map<string, number>();
  /** The webview's "ready" and the session's changes each ask for a refresh: one runs at a time. */
  private readonly refreshes = new RefreshQueue((whole) => this.sendStateNow({ whole }));

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: SessionController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.handlers = chatHandlers({
      sessions,
      executeCommand: (command, ...args) => vscode.commands.executeCommand(command, ...args),
      sendState: () => this.sendState({ whole: true }),
      scheduleRefresh: () => this.scheduleRefresh(),
      showEarlier: async () => {
        const session = await this.sessions.current();
        const id = session.info.id;
        this.shownMessages.set(id, (this.shownMessages.get(id) ?? CHAT_PAGE_MESSAGES) + CHAT_PAGE_MESSAGES);
        await this.sendState();
      },
      workbench: {
        insertAtCursor: async (text) => {
          const editor = vscode.window.activeTextEditor;
          if (!editor) throw new Error('Open a file and place the cursor where the code should go, then choose Insert at cursor again.');
          const ok = await editor.edit((edit) => editor.selections.forEach((selection) => edit.replace(selection, text)));
          if (!ok) throw new Error('The editor did not accept the insertion.');
        },
        copyToClipboard: (text) => vscode.env.clipboard.writeText(text),
        askModal: (message, detail, choices) => vscode.window.showWarningMessage(message, { modal: true, detail }, ...choices),
        openExternal: async (url) => {
          await vscode.env.openExternal(vscode.Uri.parse(url, true));
        },
      },
    });
    this.disposables.push(
      sessions.onDidChange(() => this.scheduleRefresh()),
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
   * Sends the chat's state. After the first send only the entries that changed travel: the store
   * keeps the session's records in memory and stored messages' entries are memoized, so a refresh
   * costs about the same at 10 and at 10,000 messages. `whole`: the webview (re)loaded.
   */
  private sendState(options: { whole?: boolean } = {}): Promise<void> {
    return this.refreshes.request(options.whole);
  }

  private async sendStateNow(options: { whole?: boolean }): Promise<void> {
    try {
      const session = await this.sessions.current();
      const store = await this.sessions.store();
      const id = session.info.id;
      const [recent, compactions, sessions, usage] = await Promise.all([
        // A long session opens with its recent messages; its files of older ones are not read
        // until "Show earlier" asks for them, a page at a time.
        store.loadRecentTranscript(id, this.shownMessages.get(id) ?? CHAT_PAGE_MESSAGES),
        store.listCompactionEvents(session.info.id),
        store.listSessions(),
        store.listTurnUsage(session.info.id, { items: false }),
      ]);
      // Prices are read from user settings only: a workspace must not change what a turn is said to cost.
      const priceOverrides = parsePriceOverrides(userValue(vscode.workspace.getConfiguration('tally'), 'modelPrices'));
      this.shownMessages.set(id, Math.max(this.shownMessages.get(id) ?? 0, recent.messages.length));
      const whole = options.whole || this.sentSession !== session.info.id;
      if (this.sentSession !== session.info.id) this.memo = new ChatEntryMemo();
      const state = buildChatState({
        memo: this.memo,
        session,
        transcript: recent.messages,
        compactions: recent.createdAfter === undefined ? compactions : compactions.filter((c) => c.startedAt > recent.createdAfter!),
        earlierUnloaded: !recent.complete,
        sessions,
        usage,
        priceOverrides,
        live: this.sessions.live,
        ended: this.sessions.endedTurnNotices,
        pending: this.sessions.pendingMessage,
        compacting: this.sessions.compacting,
        canRetry: this.sessions.canRetry,
      });
      this.sentSession = session.info.id;
      if (whole) this.sent.reset();
      const patch = this.sent.change(state.entries);
      if (whole) this.post({ type: 'state', state });
      else {
        const { entries: _entries, ...rest } = state;
        this.post({ type: 'update', state: rest, patch });
      }
    } catch (error) {
      this.log.error(`chat: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Every message from the webview goes through the validated boundary: invalid ones are logged and dropped. */
  private receive(raw: unknown): Promise<unknown> {
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
    for (const d of this.disposables) d.dispose();
  }
}
