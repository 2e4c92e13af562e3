import { homedir } from 'os';
import { dirname } from 'path';
import * as vscode from 'vscode';
import { userValue } from '../config/userScope';
import { CommandSandbox, type SandboxSettings } from '../node/sandbox/commandSandbox';

/**
 * The sandbox's settings, from the user's own settings only (a repository must never turn it off
 * or choose what it shows): on or off, and more paths to hide. Hidden besides the usual secrets:
 * every extension's global storage (VS Code's own state among it) and so Tally's.
 */
export function sandboxSettings(globalStorage: vscode.Uri): SandboxSettings {
  const config = vscode.workspace.getConfiguration('tally');
  const extra = userValue<unknown>(config, 'sandbox.hiddenPaths');
  return {
    enabled: userValue<unknown>(config, 'sandbox.enabled') !== false,
    turnedOffBy: 'tally.sandbox.enabled is false in your user settings',
    home: homedir(),
    extraHidden: Array.isArray(extra) ? extra.filter((p): p is string => typeof p === 'string' && p.trim() !== '') : [],
    storage: [dirname(globalStorage.fsPath), globalStorage.fsPath],
  };
}

/** A session's command sandbox, reading the settings afresh for every command. */
export function sessionSandbox(globalStorage: vscode.Uri): CommandSandbox {
  return new CommandSandbox(() => sandboxSettings(globalStorage));
}
