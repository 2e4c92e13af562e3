import * as vscode from 'vscode';
import { formatShare } from '../core/accounting/windowFigures';
import type { SessionController } from '../session/sessionController';
import { chatMeter } from '../host/session/turnFigures';
import { COUNTING } from '../protocol/meterCounting';

/** Status-bar context meter: share of the effective window; warns near the compaction threshold; opens the inspector. */
export class ContextMeter implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tally.contextMeter', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: vscode.Disposable;
  private pending?: NodeJS.Immediate;

  constructor(private readonly sessions: SessionController) {
    this.item.name = 'Tally context';
    this.item.command = 'tally.openInspector';
    this.item.text = '$(graph) Tally';
    this.item.tooltip = 'Tally: open the context inspector';
    this.item.show();
    // A turn fires a change for every agent event, several in one tick: the item is redrawn once per tick.
    this.subscription = sessions.onDidChange(() => {
      this.pending ??= setImmediate(() => {
        this.pending = undefined;
        this.update();
      });
    });
  }

  /** What the item shows now (tests read it). */
  get shown(): { text: string; tooltip: string } {
    const tooltip = this.item.tooltip;
    return { text: this.item.text, tooltip: typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? '') };
  }

  /** Redraws from the session's budget, which the session keeps until its context or usage changes. */
  update(): void {
    const shown = this.sessions.shown;
    if (!shown) return;
    const session = this.sessions.active;
    if (!session || session !== shown) {
      // The session shows while its context is read: no share yet that would change once counted.
      this.item.text = shown.readError ? '$(graph) Tally' : `$(graph) ${COUNTING}`;
      this.item.tooltip = shown.readError ? `Tally: ${shown.readError}` : 'Tally context: counting the session\'s context… Click to open the inspector.';
      this.item.backgroundColor = undefined;
      return;
    }
    const f = chatMeter(session);
    this.item.text = `$(graph) ${formatShare(f.usedShare)}`;
    this.item.tooltip = new vscode.MarkdownString(
      `**Tally context**: ${f.text.used}${f.text.estimate ? ` (${f.text.estimate})` : ''}\n\n` +
        `Effective window: ${f.text.effectiveWindow}\n\n` +
        `Compaction threshold: ${f.text.compactAt}\n\n` +
        `Block threshold: ${f.text.blockAt}${f.warning ? `\n\n⚠ ${f.warning}` : ''}\n\nClick to open the inspector.`,
    );
    this.item.backgroundColor =
      f.used >= f.compactAt ? new vscode.ThemeColor('statusBarItem.errorBackground') : f.usedShare >= f.compactShare - 0.15 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    if (this.pending) clearImmediate(this.pending);
    this.subscription.dispose();
    this.item.dispose();
  }
}
