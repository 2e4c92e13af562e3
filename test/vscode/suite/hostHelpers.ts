import * as vscode from 'vscode';
import type { TallyApi } from '../../../src/extension';

/** Tally's API, activating it first if needed. */
export async function tallyApi(): Promise<TallyApi> {
  return vscode.extensions.getExtension<TallyApi>('tally-dev.tally')!.activate();
}

/** Polls `check` every 50 ms until it holds; fails naming `what` after `ms`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
