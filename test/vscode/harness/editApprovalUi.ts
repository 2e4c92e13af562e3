import { readFileSync } from 'fs';
import { join } from 'path';
import type { Page } from 'playwright-core';
import type { FakeOpenAIServer } from '../../fakes/openaiServer';
import { findFrame } from './browser';

/**
 * An edit waiting for approval, as the user sees it: the card in the chat and VS Code's diff editor
 * with Accept and Reject in its title bar. Takes the picture, then accepts from the title bar and
 * checks the file changed and the diff closed.
 */
export async function editApprovalInTheEditor(page: Page, model: FakeOpenAIServer, workspace: string, screenshot: string): Promise<void> {
  const frame = await findFrame(page, '.composer-input', 60_000);
  model.enqueue(
    { type: 'reply', parts: [{ toolCall: { name: 'edit_file', arguments: JSON.stringify({ path: 'src/math.ts', old_text: '  return a + b;', new_text: '  // Sum of two numbers.\n  return a + b;' }) } }], usage: null },
    { type: 'reply', parts: [{ text: '[scripted model] Added a comment to add().' }], usage: null },
  );
  await frame.locator('.composer-input textarea').fill('Document add().');
  await frame.locator('.composer-input textarea').press('Enter');
  await frame.waitForSelector('[data-approve]', { timeout: 60_000 });
  const accept = page.locator('.editor-actions [aria-label="Accept Edit"]');
  await accept.waitFor({ state: 'visible', timeout: 30_000 });
  const reject = page.locator('.editor-actions [aria-label="Reject Edit"]');
  if (!(await reject.isVisible())) throw new Error('the diff editor offers no Reject');
  // The title bar says the words, not only an icon a user has to hover to understand.
  for (const [button, words] of [[accept, 'Accept Edit'], [reject, 'Reject Edit']] as const) {
    const shown = ((await button.textContent()) ?? '').trim();
    if (shown !== words) throw new Error(`the diff editor's button shows "${shown}", not "${words}"`);
  }
  await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 30_000 });
  await page.waitForTimeout(800);
  await page.screenshot({ path: screenshot });
  await accept.click();
  await frame.waitForSelector('[data-kind="assistant"]:has-text("Added a comment")', { timeout: 60_000 });
  await page.locator('.monaco-diff-editor').first().waitFor({ state: 'detached', timeout: 20_000 });
  if (!readFileSync(join(workspace, 'src', 'math.ts'), 'utf8').includes('// Sum of two numbers.')) throw new Error('accepting in the diff editor did not write the edit');
}
