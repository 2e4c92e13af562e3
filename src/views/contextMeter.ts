import * as vscode from 'vscode';
import { formatShare } from '../core/accounting/windowFigures';
import type { SessionLifecycle, ShownSession } from '../host/sessionState/sessionPorts';
import { COUNTING } from '../protocol/meterCounting';

/**
 * Status-bar context meter: share of the effective window; warns near the compaction threshold;
 * opens the inspector. It shows the shown session's meter, redrawn when a patch of its state
 * carries the header (the meter's figures are the chat's).
 */
export class ContextMeter implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tally.contextMeter', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: { dispose(): void };
  private stopPatches?: () => void;

  constructor(private readonly sessions: Pick<SessionLifecycle, 'shown' | 'onDidShow'>) {
    this.item.name = 'Tally context';
    this.item.command = 'tally.openInspector';
    this.item.text = '$(graph) Tally';
    this.item.tooltip = 'Tally: open the context inspector';
    this.item.show();
    this.subscription = sessions.onDidShow((shown) => this.follow(shown));
    if (sessions.shown) this.follow(sessions.shown);
  }

  private follow(shown: ShownSession): void {
    this.stopPatches?.();
    this.stopPatches = shown.state.onPatch((patch) => patch.chat.header && this.update());
    this.update();
  }

  /** What the item shows now (tests read it). */
  get shown(): { text: string; tooltip: string } {
    const tooltip = this.item.tooltip;
    return { text: this.item.text, tooltip: typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? '') };
  }

  /** Redraws from the shown session's meter. */
  update(): void {
    const state = this.sessions.shown?.state;
    if (!state) return;
    const f = state.meterFigures;
    if (!f) {
      // The session shows while its context is read: no share yet that would change once counted.
      const failure = state.readFailure;
      this.item.text = failure ? '$(graph) Tally' : `$(graph) ${COUNTING}`;
      this.item.tooltip = failure ? `Tally: ${failure}` : 'Tally context: counting the session\'s context… Click to open the inspector.';
      this.item.backgroundColor = undefined;
      return;
    }
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
    this.stopPatches?.();
    this.subscription.dispose();
    this.item.dispose();
  }
}
