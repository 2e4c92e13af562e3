import type * as vscode from 'vscode';
import { parseToolChoice, type ToolChoice } from '../core/tools/toolChoice';

const KEY = 'tally.toolChoice';

/** The user's tool choice, kept in the extension's global state: the user's own, never a workspace's. */
export class ToolChoiceState {
  constructor(private readonly globalState: vscode.Memento) {}

  get(): ToolChoice {
    return parseToolChoice(this.globalState.get<unknown>(KEY));
  }

  async set(choice: ToolChoice): Promise<void> {
    await this.globalState.update(KEY, choice);
  }
}
