import * as vscode from 'vscode';
import { USER_ONLY_SETTINGS, type SettingKey } from '../core/settingsSchema';

export interface IgnoredWorkspaceSetting {
  key: string;
  file: string;
}

/**
 * The value of a user-only setting from the user's own scopes (user settings,
 * else the default). Workspace, folder and language-specific values are ignored: `get()` merges
 * them in, and the `application` scope in package.json is advisory for reads.
 */
export function userValue<T>(config: vscode.WorkspaceConfiguration, key: SettingKey): T | undefined {
  const inspected = config.inspect<T>(key);
  return inspected?.globalValue !== undefined ? inspected.globalValue : inspected?.defaultValue;
}

/** User-only settings a workspace or folder tried to set, with the file they came from. */
export function ignoredWorkspaceSettings(): IgnoredWorkspaceSetting[] {
  const found: IgnoredWorkspaceSetting[] = [];
  const folders = vscode.workspace.workspaceFolders ?? [];
  const workspaceFile = vscode.workspace.workspaceFile;
  const workspaceSettingsFile = workspaceFile && workspaceFile.scheme !== 'untitled' ? workspaceFile.fsPath : folders[0] ? vscode.Uri.joinPath(folders[0].uri, '.vscode', 'settings.json').fsPath : 'workspace settings';
  const root = vscode.workspace.getConfiguration('tally');
  for (const key of USER_ONLY_SETTINGS) {
    const inspected = root.inspect(key);
    if (inspected?.workspaceValue !== undefined || inspected?.workspaceLanguageValue !== undefined) found.push({ key: `tally.${key}`, file: workspaceSettingsFile });
    for (const folder of folders) {
      const perFolder = vscode.workspace.getConfiguration('tally', folder.uri).inspect(key);
      if (perFolder?.workspaceFolderValue !== undefined || perFolder?.workspaceFolderLanguageValue !== undefined) {
        const file = vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json').fsPath;
        if (!found.some((f) => f.key === `tally.${key}` && f.file === file)) found.push({ key: `tally.${key}`, file });
      }
    }
  }
  return found;
}

const warned = new Set<string>();

/** Tells the user once per setting and file that a workspace value was ignored (non-modal). */
export function warnIgnoredWorkspaceSettings(): IgnoredWorkspaceSetting[] {
  const ignored = ignoredWorkspaceSettings();
  for (const { key, file } of ignored) {
    const id = `${key}\u0000${file}`;
    if (warned.has(id)) continue;
    warned.add(id);
    void vscode.window.showWarningMessage(`Tally ignored ${key} from ${file}: only your user settings may choose where requests and keys go and whether tools run without asking.`);
  }
  return ignored;
}
