import type { Page } from 'playwright-core';
import { findFrame, runCommand } from './browser';

/**
 * Fork from a request as the user does it: in the inspector, select the live session's latest
 * request, press "Fork from request #N"; the chat then shows the forked session (its title, the
 * carried messages and where it was forked) and the inspector its history's fork entry. Takes a
 * picture of the action and one of the fork's first view.
 */
export async function forkFromTheInspector(page: Page, screenshots: { action: string; forked: string }): Promise<void> {
  const inspector = await findFrame(page, '[data-request-index]', 30_000);
  const latest = await inspector.$$eval('[data-request-index]', (els) => Math.max(...els.map((e) => Number(e.getAttribute('data-request-index')))));
  await inspector.click(`[data-request-index="${latest}"]`);
  const action = inspector.locator(`.fork-action vscode-button[data-action="fork"][data-request="${latest}"]`);
  await action.waitFor({ timeout: 30_000 });
  await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  await action.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshots.action });
  const chat = await findFrame(page, '.composer-input', 30_000);
  await action.click();
  const notice = await chat.waitForSelector('[data-step="fork"] [data-field="fork"]', { timeout: 60_000 });
  const text = (await notice.textContent()) ?? '';
  if (!text.startsWith(`Forked from request #${latest} with `)) throw new Error(`the chat's fork notice says "${text}"`);
  if (!(await chat.$('[data-kind="user"]'))) throw new Error('the fork shows none of the carried messages');
  await inspector.waitForSelector('details.compaction [data-field="fork"]', { timeout: 30_000 });
  const inspectorText = (await inspector.textContent('details.compaction [data-field="fork"]')) ?? '';
  if (inspectorText !== text) throw new Error(`the inspector's history says "${inspectorText}", the chat "${text}"`);
  const shown = ((await chat.textContent('.session-picker vscode-option[selected]')) ?? '').trim();
  if (!/^Fork of .+ at #\d+$/.test(shown)) throw new Error(`the chat's session picker shows "${shown}", not the fork`);
  await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  await inspector.evaluate(() => document.querySelector('#history')?.scrollIntoView());
  await page.screenshot({ path: screenshots.forked });
}
