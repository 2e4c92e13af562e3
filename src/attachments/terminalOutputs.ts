import * as vscode from 'vscode';

/** Most characters kept of one command's output: the end is kept (where results and errors are). */
const MAX_CHARS = 512 * 1024;
// Escape sequences a shell writes for colours, cursor moves and shell-integration marks.
const ESCAPES = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g;

export interface TerminalCommandOutput {
  terminal: string;
  commandLine: string;
  exitCode?: number;
  output: string;
  /** Characters left out from the start. */
  omitted: number;
}

/**
 * The output of the last command run in a terminal with shell integration, read as VS Code offers
 * it: a command's data is only readable from when reading starts, so each command is read as it
 * starts and only the last finished one is kept (its end, at most 512K characters).
 * Without shell integration (an older VS Code, or a shell it does not support) nothing is kept.
 */
export class TerminalOutputs implements vscode.Disposable {
  private last?: TerminalCommandOutput;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    const start = vscode.window.onDidStartTerminalShellExecution;
    if (typeof start !== 'function') return;
    this.disposables.push(start((event) => void this.capture(event.terminal, event.execution)));
    const end = vscode.window.onDidEndTerminalShellExecution;
    if (typeof end === 'function') this.disposables.push(end((event) => this.exitCodes.set(event.execution, event.exitCode)));
  }

  private readonly exitCodes = new WeakMap<vscode.TerminalShellExecution, number | undefined>();

  /** Whether VS Code exposes terminal output at all here. */
  get supported(): boolean {
    return typeof vscode.window.onDidStartTerminalShellExecution === 'function';
  }

  get lastOutput(): TerminalCommandOutput | undefined {
    return this.last;
  }

  private async capture(terminal: vscode.Terminal, execution: vscode.TerminalShellExecution): Promise<void> {
    let text = '';
    let omitted = 0;
    try {
      for await (const data of execution.read()) {
        text += data;
        if (text.length > 2 * MAX_CHARS) {
          omitted += text.length - MAX_CHARS;
          text = text.slice(-MAX_CHARS);
        }
      }
    } catch {
      return; // the terminal closed while reading: nothing to keep
    }
    const clean = text.replace(ESCAPES, '').replace(/\r\n?/g, '\n');
    const cut = Math.max(0, clean.length - MAX_CHARS);
    this.last = { terminal: terminal.name, commandLine: execution.commandLine.value, exitCode: this.exitCodes.get(execution), output: clean.slice(cut), omitted: omitted + cut };
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
