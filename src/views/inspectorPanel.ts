import * as vscode from 'vscode';
import { inspectorHandlers } from '../host/inspector/inspectorIntents';
import { buildInspectorState } from '../host/inspector/inspectorState';
import { InspectorUpdates } from '../host/inspector/inspectorUpdates';
import { InspectorSubject, SUBAGENT_READ_ONLY } from '../host/inspector/subagentSubject';
import { SubagentSummaryCache } from '../host/inspector/subagentSummaries';
import { readConfiguration } from '../config/readSettings';
import { RefreshQueue } from '../host/session/refreshQueue';
import type { SessionController } from '../session/sessionController';
import type { HostToInspector } from '../protocol/inspector';
import { receiveWebviewMessage } from '../protocol/receive';
import { parseInspectorMessage } from '../protocol/validate';
import { webviewHtml, webviewRoots } from './webviewHtml';

/** The context inspector: follows the active session live; the host re-sends state on `ready`. */
export class InspectorPanel implements vscode.Disposable {
  static readonly viewType = 'tally.inspector';
  private static current?: InspectorPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer?: NodeJS.Timeout;
  /** What the webview holds, so a refresh sends only the requests and items that changed. */
  private readonly updates = new InspectorUpdates();
  private readonly handlers: ReturnType<typeof inspectorHandlers>;
  /** The webview's "ready" and the session's changes each ask for a refresh: one runs at a time. */
  private readonly refreshes = new RefreshQueue((whole) => this.sendStateNow(whole));
  /** The session shown: the chat's, or a subagent's window opened from it. */
  private readonly subject: InspectorSubject;
  private readonly subagentSummaries = new SubagentSummaryCache();

  static show(extensionUri: vscode.Uri, sessions: SessionController, log: vscode.LogOutputChannel): InspectorPanel {
    if (InspectorPanel.current) {
      InspectorPanel.current.panel.reveal();
      InspectorPanel.current.scheduleRefresh();
      return InspectorPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(InspectorPanel.viewType, 'Tally: Context Inspector', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: webviewRoots(extensionUri),
      // Coming back to the tab finds the page as it was left (scroll, selection, open rows) at once, not rebuilt.
      retainContextWhenHidden: true,
    });
    InspectorPanel.current = new InspectorPanel(panel, extensionUri, sessions, log);
    return InspectorPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly sessions: SessionController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subject = new InspectorSubject({ store: () => sessions.store(), settings: () => readConfiguration().context });
    this.handlers = inspectorHandlers({
      sessions: this.subject.actions(sessions),
      subagents: { open: async (sessionId) => this.subject.open(await sessions.current(), sessionId), back: () => this.subject.back() },
      post: (message) => this.post(message),
      sendState: (whole) => this.sendState(whole),
      showEarlier: (list) => this.updates.showEarlier(list),
      // The editor commands open parts of the chat's session: not offered in a subagent's window.
      executeCommand: async (command, ...args) => {
        if (this.subject.showsSubagent(await sessions.current())) throw new Error(SUBAGENT_READ_ONLY);
        return vscode.commands.executeCommand(command, ...args);
      },
      showInformation: (text) => void vscode.window.showInformationMessage(text),
    });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'tally.svg');
    panel.webview.html = webviewHtml(panel.webview, extensionUri, 'inspector', 'Tally: Context Inspector');
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      sessions.onDidChange(() => this.scheduleRefresh()),
      // A running subagent's window shown here follows its requests.
      sessions.onAgentEvent((event) => {
        if (event.type !== 'subagent') return;
        void sessions
          .current()
          .then((main) => this.subject.follow(main, event.progress))
          .then((reread) => reread && this.scheduleRefresh(), (error: Error) => log.warn(`inspector: a subagent's window could not be read again: ${error.message}`));
      }),
      panel.onDidChangeViewState(() => panel.visible && this.scheduleRefresh()),
    );
  }

  private post(message: HostToInspector): void {
    void this.panel.webview.postMessage(message);
  }

  /** Coalesces bursts of changes (a streaming turn) into one state push. */
  scheduleRefresh(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.sendState();
    }, 150);
  }

  private sendState(whole = false): Promise<void> {
    return this.refreshes.request(whole);
  }

  private async sendStateNow(whole: boolean): Promise<void> {
    try {
      const main = await this.sessions.current();
      const session = this.subject.shown(main);
      // Results stored before the session opened are named once, when the inspector first shows them.
      await session.view.seedTitles();
      const subagents = await this.subagentSummaries.of(await this.sessions.store(), session);
      const subagentOf = this.subject.header(main);
      const built = buildInspectorState(session);
      // A subagent's session has ended: no forecast of its next turns.
      if (subagentOf) {
        delete built.averageTurnTokens;
        delete built.turnsRemaining;
      }
      const state = { ...built, ...(subagents ? { subagents } : {}), ...(subagentOf ? { subagentOf } : {}) };
      this.post(this.updates.message(state, whole, session.view.versions));
    } catch (error) {
      this.post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Every message from the webview goes through the validated boundary: invalid ones are logged and dropped. */
  private receive(raw: unknown): Promise<unknown> {
    return receiveWebviewMessage(raw, {
      source: 'inspector',
      parse: parseInspectorMessage,
      log: this.log,
      handlers: this.handlers,
      onError: (error) => {
        this.post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
        this.post({ type: 'busy', busy: false });
      },
    });
  }

  dispose(): void {
    if (InspectorPanel.current === this) InspectorPanel.current = undefined;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
