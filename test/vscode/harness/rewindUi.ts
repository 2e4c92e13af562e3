import { readFileSync } from 'fs';
import { join } from 'path';
import type { Page } from 'playwright-core';
import { findFrame } from './browser';

/**
 * After the edit-approval turn ("Document add()." edited src/math.ts): Restore files from the chat
 * opens the diff and the modal confirmation (pictured), puts the file back and says so in the chat;
 * Rewind to here asks (pictured), takes the conversation back and puts the message in the composer.
 */
export async function restoreAndRewindInTheChat(page: Page, workspace: string, screenshots: { restore: string; rewind: string; after: string }): Promise<void> {
  const frame = await findFrame(page, '.composer-input', 60_000);
  const math = join(workspace, 'src', 'math.ts');
  if (!readFileSync(math, 'utf8').includes('// Sum of two numbers.')) throw new Error('the edit to restore is not there');
  const turn = frame.locator('.entry.user:has-text("Document add().")').last();
  const restore = turn.locator('[data-action="restore-files"]');
  await restore.waitFor({ timeout: 30_000 });
  if (((await restore.textContent()) ?? '').trim() !== 'Restore files (1)') throw new Error(`the turn offers "${await restore.textContent()}"`);
  await restore.click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  const asked = (await dialog.textContent()) ?? '';
  if (!/Restore 1 file to before “Document add\(\)\.”/.test(asked) || !/Written back: src\/math\.ts/.test(asked)) throw new Error(`the confirmation says: ${asked}`);
  await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForTimeout(800);
  await page.screenshot({ path: screenshots.restore });
  await dialog.locator('.monaco-button', { hasText: 'Restore Files' }).click();
  // The chat says so once the file is written back.
  await frame.waitForSelector('[data-kind="compaction"]:has-text("Restored 1 file to before")', { timeout: 30_000 });
  if (readFileSync(math, 'utf8').includes('// Sum of two numbers.')) throw new Error('the chat says the file was restored, but it still holds the edit');

  await turn.locator('[data-action="rewind"]').click();
  await dialog.waitFor({ state: 'visible', timeout: 30_000 });
  const rewindAsked = (await dialog.textContent()) ?? '';
  if (!/Rewind to before “Document add\(\)\.”/.test(rewindAsked) || !/set aside/.test(rewindAsked)) throw new Error(`the rewind confirmation says: ${rewindAsked}`);
  await page.waitForTimeout(500);
  await page.screenshot({ path: screenshots.rewind });
  await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).click();
  await frame.waitForSelector('[data-kind="compaction"]:has-text("Rewound to before “Document add().”")', { timeout: 30_000 });
  // The composer's text box (the locator finds it inside the toolkit's shadow root): its text changes without a DOM event to wait for.
  const box = await frame.locator('.composer-input textarea').elementHandle({ timeout: 30_000 });
  await frame.waitForFunction((element) => (element as HTMLTextAreaElement | null)?.value === 'Document add().', box, { timeout: 30_000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: screenshots.after });
  await frame.locator('.composer-input textarea').fill('');
}
