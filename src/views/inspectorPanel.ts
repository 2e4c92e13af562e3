import { TextDecoder } from 'util';
import * as vscode from 'vscode';
import { buildInspectorState } from '../host/inspectorState';
import type { SessionController } from '../host/sessionController';
import type { CompactionPreviewView, HostToInspector, InspectorToHost } from '../protocol/inspector';
import { parseInspectorMessage } from '../protocol/validate';
import { webviewHtml, webviewRoots } from './webviewHtml';

const PAGE_BYTES = 16 * 1024;

/** The context inspector (F22): follows the active session live; the host re-sends state on `ready`. */
export class InspectorPanel implements vscode.Disposable {
  static readonly viewType = 'tally.inspector';
  private static current?: InspectorPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer?: NodeJS.Timeout;

  static show(extensionUri: vscode.Uri, sessions: SessionController, log: vscode.LogOutputChannel): InspectorPanel {
    if (InspectorPanel.current) {
      InspectorPanel.current.panel.reveal();
      InspectorPanel.current.scheduleRefresh();
      return InspectorPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(InspectorPanel.viewType, 'Tally: Context Inspector', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: webviewRoots(extensionUri),
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

  private async sendState(): Promise<void> {
    try {
      const session = await this.sessions.current();
      const state = await buildInspectorState(session, await this.sessions.store());
      this.post({ type: 'state', state });
    } catch (error) {
      this.post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = parseInspectorMessage(raw);
    if ('error' in parsed) {
      this.log.warn(`inspector: rejected a message from the webview: ${parsed.error}`);
      return;
    }
    try {
      await this.handle(parsed);
    } catch (error) {
      this.post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
      this.post({ type: 'busy', busy: false });
    }
  }

  private async handle(message: InspectorToHost): Promise<void> {
    const store = await this.sessions.store();
    switch (message.type) {
      case 'ready':
      case 'refresh':
        await this.sendState();
        return;
      case 'selectTurn': {
        const session = await this.sessions.current();
        const usage = await store.listTurnUsage(session.info.id);
        const turn = usage.find((u) => u.requestIndex === message.requestIndex);
        this.post({ type: 'turnItems', requestIndex: message.requestIndex, items: turn?.items ?? [] });
        return;
      }
      case 'loadBlob': {
        const slice = await store.readBlob(message.refId, message.offset, PAGE_BYTES);
        const next = slice.offset + slice.bytes.length;
        this.post({
          type: 'blobPage',
          refId: message.refId,
          offset: slice.offset,
          text: new TextDecoder('utf-8', { fatal: false }).decode(slice.bytes),
          totalBytes: slice.totalBytes,
          nextOffset: next < slice.totalBytes ? next : undefined,
        });
        return;
      }
      case 'openBlobInEditor':
        await vscode.commands.executeCommand('tally.openResult', message.refId);
        return;
      case 'pin':
        await this.sessions.setPinned(message.messageId, message.pinned);
        return;
      case 'previewCompaction': {
        this.post({ type: 'busy', busy: true, label: 'Computing compaction preview…' });
        const result = await this.sessions.preview(message.focus);
        const preview: CompactionPreviewView = {
          focus: message.focus,
          tokensBefore: result.tokensBefore,
          tokensAfter: result.tokensAfter,
          strategies: result.strategiesRun,
          removed: result.removed,
          status: result.status,
          error: result.error,
        };
        this.post({ type: 'busy', busy: false });
        this.post({ type: 'preview', preview });
        return;
      }
      case 'confirmCompaction': {
        this.post({ type: 'busy', busy: true, label: 'Compacting…' });
        const result = await this.sessions.compact(message.focus);
        this.post({ type: 'busy', busy: false });
        void vscode.window.showInformationMessage(compactionSummary(result));
        await this.sendState();
        return;
      }
    }
  }

  dispose(): void {
    if (InspectorPanel.current === this) InspectorPanel.current = undefined;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}

export function compactionSummary(result: { status: string; tokensBefore: number; tokensAfter: number; strategiesRun: string[]; error?: string }): string {
  const n = (v: number) => v.toLocaleString('en-US');
  if (result.status === 'error') return `Compaction failed: ${result.error ?? 'unknown error'}. Nothing was changed.`;
  if (result.status === 'skipped') return `Nothing to compact: the context holds ${n(result.tokensBefore)} tokens.`;
  return `Compacted context: ${n(result.tokensBefore)} → ${n(result.tokensAfter)} tokens (${result.strategiesRun.join(', ')}).`;
}
