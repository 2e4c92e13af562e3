import * as vscode from 'vscode';
import type { SessionController } from '../host/sessionController';

/** Status-bar context meter: percent of the effective window; warns near the trigger; opens the inspector. */
export class ContextMeter implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tally.contextMeter', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly sessions: SessionController) {
    this.item.name = 'Tally context';
    this.item.command = 'tally.openInspector';
    this.item.text = '$(graph) Tally';
    this.item.tooltip = 'Tally: open the context inspector';
    this.item.show();
    this.subscription = sessions.onDidChange(() => this.update());
  }

  update(): void {
    const session = this.sessions.active;
    if (!session) return;
    const budget = session.manager.measure(session.fixed);
    const percent = Math.round(budget.percent * 100);
    const trigger = budget.compactAtTokens / budget.effectiveWindow;
    this.item.text = `$(graph) ${percent}%`;
    this.item.tooltip = new vscode.MarkdownString(
      `**Tally context**: ${budget.used.toLocaleString('en-US')} of ${budget.effectiveWindow.toLocaleString('en-US')} tokens (${percent}%)\n\n` +
        `Compaction at ${Math.round(trigger * 100)}%.${budget.windowIsFallback && session.chat ? `\n\n⚠ ${budget.warning}` : ''}\n\nClick to open the inspector.`,
    );
    this.item.backgroundColor =
      budget.percent >= trigger ? new vscode.ThemeColor('statusBarItem.errorBackground') : budget.percent >= trigger - 0.15 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
