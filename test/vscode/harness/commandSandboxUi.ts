import { existsSync, rmSync } from 'fs';
import type { Page } from 'playwright-core';
import type { FakeOpenAIServer } from '../../fakes/openaiServer';
import { findFrame } from './browser';

/**
 * A command the sandbox stopped, as the user sees it: commands run without asking in this window,
 * yet writing outside the workspace (here /var/tmp, read-only in the sandbox) brings a card that
 * says it failed in the sandbox and offers to run it outside. Takes the picture, then answers
 * Deny and checks nothing was written and the result says why.
 */
export async function sandboxRefusalInTheChat(page: Page, model: FakeOpenAIServer, screenshot: string): Promise<void> {
  const target = `/var/tmp/tally-ui-outside-${process.pid}`;
  rmSync(target, { force: true });
  const frame = await findFrame(page, '.composer-input', 60_000);
  model.enqueue(
    { type: 'reply', parts: [{ toolCall: { name: 'run_command', arguments: JSON.stringify({ command: `echo built > ${target}` }) } }], usage: null },
    { type: 'reply', parts: [{ text: '[scripted model] The build could not write its output.' }], usage: null },
  );
  await frame.locator('.composer-input textarea').fill('Build it.');
  await frame.locator('.composer-input textarea').press('Enter');
  const card = frame.locator('.tool-card[data-status="awaiting_approval"]');
  await card.waitFor({ timeout: 60_000 });
  const line = ((await card.locator('.approval-sandbox').textContent()) ?? '').trim();
  if (!/It failed in the sandbox; the sandbox may have stopped it: it refuses writes outside the workspace/.test(line)) throw new Error(`the card does not say the sandbox stopped it: ${line}`);
  const approve = ((await card.locator('[data-approve]').textContent()) ?? '').trim();
  if (approve !== 'Run outside the sandbox') throw new Error(`the card's first button says "${approve}"`);
  if (await card.locator('[data-approve-session]').count()) throw new Error('running outside the sandbox is offered for the session');
  await card.scrollIntoViewIfNeeded();
  await page.waitForTimeout(500);
  await page.screenshot({ path: screenshot });
  await card.locator('[data-deny]').click();
  await frame.waitForSelector('[data-kind="assistant"]:has-text("could not write its output")', { timeout: 60_000 });
  if (existsSync(target)) throw new Error(`${target} was written`);
  const result = (await frame.locator('.tool-card[data-status="error"] .tool-result-text').last().textContent()) ?? '';
  if (!/The user chose not to run it outside the sandbox/.test(result)) throw new Error(`the result does not say it stayed in the sandbox: ${result}`);
}
