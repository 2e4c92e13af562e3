import * as vscode from 'vscode';
import type { CommandSandbox } from '../node/sandbox/commandSandbox';

/**
 * Says in the status bar, once, when the agent's commands run without a sandbox (none on this
 * machine, or turned off), with the reason; nothing shows while commands are sandboxed.
 */
export class SandboxStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('tally.sandbox', vscode.StatusBarAlignment.Right, 99);
  private readonly subscriptions: vscode.Disposable[] = [];
  private reason = '';
  /** The latest update, which the tests' reading of the item waits for. */
  private updating: Promise<void> = Promise.resolve();

  constructor(private readonly sandbox: CommandSandbox) {
    this.item.name = 'Tally sandbox';
    this.item.command = 'tally.showSandboxStatus';
    this.subscriptions.push(
      vscode.commands.registerCommand('tally.showSandboxStatus', () => this.explain()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tally.sandbox')) this.update();
      }),
    );
    this.update();
  }

  /** What the item shows once its latest update is done, and whether it shows (tests read it). */
  async shown(): Promise<{ visible: boolean; text: string; tooltip: string }> {
    await this.updating;
    return { visible: this.reason !== '', text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : '' };
  }

  private update(): void {
    this.updating = this.updating.then(() => this.redraw()).catch(() => undefined);
  }

  private async redraw(): Promise<void> {
    const state = await this.sandbox.state((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
    if (state.sandboxed) {
      this.reason = '';
      this.item.hide();
      return;
    }
    this.reason = state.reason;
    this.item.text = state.turnedOff ? '$(warning) Sandbox off' : '$(warning) No sandbox';
    this.item.tooltip = `Tally runs the agent's commands without a sandbox: ${state.reason}. A command can change any file you can, read your secrets and use the network, and no "allow for this session" is offered.`;
    this.item.show();
  }

  private explain(): void {
    if (!this.reason) return void vscode.window.showInformationMessage("Tally runs the agent's commands in a sandbox.");
    void vscode.window.showWarningMessage(`Tally runs the agent's commands without a sandbox: ${this.reason}. A command can change any file you can, read your secrets and use the network, and no "allow for this session" is offered.`);
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}
