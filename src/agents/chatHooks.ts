import { homedir } from 'os';
import { join } from 'path';
import * as vscode from 'vscode';
import { parseHooks, type HookEntry } from '../core/hooks/hookConfig';
import { DEFAULT_HOOK_TIMEOUT_MS, Hooks } from '../core/hooks/hooks';
import { readHooksFile } from '../node/hooks/hooksFile';
import { NodeHookProcess } from '../node/hooks/nodeHookProcess';
import type { CommandSandbox } from '../node/sandbox/commandSandbox';

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

/**
 * The chat's hooks, read before each event: `tally.hooks` from the user's own settings (a
 * workspace's value is never read), then each folder's `.tally/hooks.json` while the workspace is
 * trusted (never in Restricted Mode). Hooks from a workspace file run in the session's command
 * sandbox when it has one; the user's own run as the user's commands would outside Tally.
 */
export function chatHooks(args: { sessionId: () => string; sandbox: CommandSandbox; log: vscode.LogOutputChannel }): Hooks {
  const logged = new Set<string>();
  const report = (problems: readonly string[]) => {
    for (const problem of problems) {
      if (logged.has(problem)) continue;
      logged.add(problem);
      args.log.warn(`hooks: ${problem}`);
    }
  };
  return new Hooks({
    hooks: async () => {
      const setting = vscode.workspace.getConfiguration('tally').inspect<unknown>('hooks')?.globalValue;
      const user = parseHooks(setting, 'user', 'the tally.hooks setting');
      report(user.problems);
      const entries: HookEntry[] = [...user.hooks];
      if (vscode.workspace.isTrusted) {
        for (const read of await Promise.all(folders().map((folder) => readHooksFile(join(folder, '.tally', 'hooks.json'), 'workspace')))) {
          report(read.problems);
          entries.push(...read.hooks);
        }
      }
      return entries;
    },
    trusted: () => vscode.workspace.isTrusted,
    process: new NodeHookProcess({ sandbox: { sandbox: args.sandbox, folders } }),
    sessionId: args.sessionId,
    cwd: () => folders()[0] ?? homedir(),
    timeoutMs: (vscode.workspace.getConfiguration('tally').inspect<number>('hookTimeoutSeconds')?.globalValue ?? DEFAULT_HOOK_TIMEOUT_MS / 1000) * 1000,
  });
}
