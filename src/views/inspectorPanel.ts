import * as vscode from 'vscode';
import { InspectorFeed } from '../host/inspector/inspectorFeed';
import { inspectorHandlers } from '../host/inspector/inspectorIntents';
import { InspectorSubject, SUBAGENT_READ_ONLY } from '../host/inspector/subagentSubject';
import type { SessionActions } from '../host/sessionState/sessionActions';
import { readConfiguration } from '../config/readSettings';
import type { SessionController } from '../lifecycle/sessionController';
import type { HostToInspector } from '../protocol/inspector';
import { receiveWebviewMessage } from '../protocol/receive';
import { parseInspectorMessage } from '../protocol/validate';
import { webviewHtml, webviewRoots } from './webviewHtml';

/**
 * The context inspector. A pipe: what its feed makes of the shown session's state goes to the
 * webview as it is made; the whole state goes on `ready` and when the session or the subject changes.
 */
export class InspectorPanel implements vscode.Disposable {
  static readonly viewType = 'tally.inspector';
  private static current?: InspectorPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly handlers: ReturnType<typeof inspectorHandlers>;
  private readonly feed: InspectorFeed;

  static show(extensionUri: vscode.Uri, lifecycle: SessionController, sessions: SessionActions, log: vscode.LogOutputChannel): InspectorPanel {
    if (InspectorPanel.current) {
      InspectorPanel.current.panel.reveal();
      return InspectorPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(InspectorPanel.viewType, 'Tally: Context Inspector', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: webviewRoots(extensionUri),
      // Coming back to the tab finds the page as it was left (scroll, selection, open rows) at once, not rebuilt.
      retainContextWhenHidden: true,
    });
    InspectorPanel.current = new InspectorPanel(panel, extensionUri, lifecycle, sessions, log);
    return InspectorPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    lifecycle: SessionController,
    sessions: SessionActions,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const subject = new InspectorSubject({ store: () => sessions.store(), settings: () => readConfiguration().context });
    this.feed = new InspectorFeed({ post: (message) => this.panel.webview.postMessage(message), current: () => sessions.current(), store: () => sessions.store() }, subject);
    this.handlers = inspectorHandlers({
      sessions: subject.actions(sessions),
      subagents: { open: async (sessionId) => subject.open(await sessions.current(), sessionId), back: () => subject.back() },
      post: (message) => this.post(message),
      sendState: () => this.feed.whole(),
      showEarlier: (list) => this.feed.showEarlier(list),
      // The editor commands open parts of the chat's session: not offered in a subagent's window.
      executeCommand: async (command, ...args) => {
        if (subject.showsSubagent(await sessions.current())) throw new Error(SUBAGENT_READ_ONLY);
        return vscode.commands.executeCommand(command, ...args);
      },
      showInformation: (text) => void vscode.window.showInformationMessage(text),
    });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'tally.svg');
    panel.webview.html = webviewHtml(panel.webview, extensionUri, 'inspector', 'Tally: Context Inspector');
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      // Another session resumed in the chat: the inspector shows it whole.
      lifecycle.onDidResume((session) => void (this.feed.follows(session) || this.feed.whole())),
      // A running subagent's window shown here follows its requests: read again, and shown whole.
      lifecycle.onAgentEvent((event) => {
        if (event.type !== 'subagent') return;
        void sessions
          .current()
          .then((main) => subject.follow(main, event.progress))
          .then(
            async (reread) => {
              if (reread) await this.feed.whole();
            },
            (error: Error) => log.warn(`inspector: a subagent's window could not be read again: ${error.message}`),
          );
      }),
    );
  }

  private post(message: HostToInspector): void {
    void this.panel.webview.postMessage(message);
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
    this.feed.dispose();
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
