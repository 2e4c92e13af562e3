import { execFile } from 'child_process';
import * as vscode from 'vscode';

interface GitRepository {
  rootUri: vscode.Uri;
  diff(cached?: boolean): Promise<string>;
}
interface GitApi {
  repositories: GitRepository[];
}

const MAX_BUFFER = 64 * 1024 * 1024;

/** The VS Code git extension's API, when it is installed and enabled. */
async function gitApi(): Promise<GitApi | undefined> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitApi }>('vscode.git');
  if (!extension) return undefined;
  try {
    const exports = extension.isActive ? extension.exports : await extension.activate();
    return exports?.getAPI(1);
  } catch {
    return undefined;
  }
}

/**
 * git run by Tally when the git extension is not there: arguments as a list (no shell), the
 * repository's programs for diffs turned off (external diff, textconv filters, fsmonitor).
 */
function runGitDiff(folder: string, cached: boolean): Promise<string> {
  const args = ['-c', 'core.fsmonitor=false', '--no-pager', 'diff', '--no-ext-diff', '--no-textconv', '--no-color'];
  if (cached) args.push('--cached');
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: folder, maxBuffer: MAX_BUFFER, timeout: 30_000, windowsHide: true }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git diff failed in ${folder}: ${(stderr || error.message).trim().split('\n')[0]}`));
      else resolve(stdout);
    });
  });
}

/**
 * The working tree's changes in every workspace folder's repository: staged and unstaged, as
 * `git diff` prints them. Refused in Restricted Mode: git reads the repository's own config.
 */
export async function workingTreeChanges(folders: readonly string[], trusted: boolean): Promise<string> {
  if (!trusted) throw new Error('The working tree\'s changes are not attached in Restricted Mode: git would read the repository\'s own configuration. Trust the workspace to attach them.');
  const api = await gitApi();
  const parts: string[] = [];
  if (api) {
    const repositories = api.repositories.filter((r) => folders.some((f) => isInside(f, r.rootUri.fsPath) || isInside(r.rootUri.fsPath, f)));
    for (const repo of repositories) {
      const [staged, unstaged] = await Promise.all([repo.diff(true), repo.diff(false)]);
      parts.push(section(repo.rootUri.fsPath, staged, unstaged));
    }
  } else {
    for (const folder of folders) {
      const [staged, unstaged] = await Promise.all([runGitDiff(folder, true), runGitDiff(folder, false)]);
      parts.push(section(folder, staged, unstaged));
    }
  }
  const text = parts.filter(Boolean).join('\n');
  if (!text.trim()) throw new Error('There are no changes in the working tree to attach.');
  return text;
}

function section(root: string, staged: string, unstaged: string): string {
  const out: string[] = [];
  if (staged.trim()) out.push(`# Staged changes in ${root}\n${staged}`);
  if (unstaged.trim()) out.push(`# Unstaged changes in ${root}\n${unstaged}`);
  return out.join('\n');
}

function isInside(parent: string, child: string): boolean {
  const p = parent.endsWith('/') ? parent : `${parent}/`;
  return child === parent || child.startsWith(p);
}
