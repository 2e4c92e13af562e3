import * as vscode from 'vscode';
import { inspectorHandlers } from '../host/inspector/inspectorIntents';
import { buildInspectorState } from '../host/inspector/inspectorState';
import { InspectorUpdates } from '../host/inspector/inspectorUpdates';
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
    this.handlers = inspectorHandlers({
      sessions,
      post: (message) => this.post(message),
      sendState: (whole) => this.sendState(whole),
      showEarlier: (list) => this.updates.showEarlier(list),
      executeCommand: (command, ...args) => vscode.commands.executeCommand(command, ...args),
      showInformation: (text) => void vscode.window.showInformationMessage(text),
    });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'tally.svg');
    panel.webview.html = webviewHtml(panel.webview, extensionUri, 'inspector', 'Tally: Context Inspector');
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      sessions.onDidChange(() => this.scheduleRefresh()),
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
      const session = await this.sessions.current();
      // Results stored before the session opened are named once, when the inspector first shows them.
      await session.view.seedTitles();
      this.post(this.updates.message(buildInspectorState(session), whole, session.view.versions.titles));
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
