import type { Page } from 'playwright-core';
import type { FakeOpenAIServer } from '../../fakes/openaiServer';
import { approvedPlanScript, planTurnScript } from '../../fakes/planTurn';
import type { RecordedRequest } from '../../fakes/scriptedServer';
import { findFrame, runCommand } from './browser';

const PLAN = '[scripted model] Here is my plan (I changed nothing):\n\n1. Read `src/math.ts`.\n2. Add a doc comment to `add()`.\n3. Run the tests.';
const EDITED = '1. Read `src/math.ts`.\n2. Add a doc comment to `add()` that names both parameters.\n3. Run only the math tests.';
const toolsOf = (request: RecordedRequest) => ((request.body?.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

/**
 * Plan mode as the user drives it in the real chat: switched on from the palette, a message planned
 * with reads only, the plan's card edited in place and approved, and the next request carrying the
 * edited plan with every tool back. Screenshots of the card proposed (edited) and approved.
 */
export async function planModeInTheChat(page: Page, model: FakeOpenAIServer, shots: { proposed: string; approved: string }): Promise<void> {
  // A run that picks this check alone leaves the earlier checks' replies queued.
  model.dropPending();
  await page.keyboard.press('Escape');
  await runCommand(page, 'Tally: New Session');
  await runCommand(page, 'Tally: Focus on Chat View');
  const frame = await findFrame(page, '.composer-input', 60_000);
  // The mode is the session's: switched before the new session shows, it would be the last one's.
  await frame.locator('.empty-hint').waitFor({ state: 'visible', timeout: 30_000 });
  await runCommand(page, 'Tally: Toggle Plan Mode');
  await frame.waitForSelector('.plan-mode-line[data-plan-mode="on"]', { timeout: 30_000 });
  const toggle = ((await frame.textContent('vscode-button[data-action="plan-mode"]')) ?? '').trim();
  if (toggle !== 'Plan mode: on') throw new Error(`the composer's switch says "${toggle}"`);

  const before = model.requests.length;
  model.enqueue(...planTurnScript(PLAN));
  await frame.locator('.composer-input textarea').fill('Plan a doc comment for add().');
  await frame.locator('.composer-input textarea').press('Enter');
  const card = frame.locator('.plan-card[data-plan-status="proposed"]');
  await card.waitFor({ timeout: 90_000 });
  const planning = model.requests.slice(before);
  for (const request of planning) {
    const offered = toolsOf(request);
    if (offered.includes('edit_file') || offered.includes('run_command') || !offered.includes('read_file')) throw new Error(`a plan-mode request offered ${offered.join(', ')}`);
  }

  await card.locator('[data-action="edit-plan"]').click();
  await card.locator('vscode-text-area.plan-editor textarea').fill(EDITED);
  await card.locator('[data-action="save-plan"]').click();
  const edited = frame.locator('.plan-card[data-plan-status="proposed"][data-plan-edited]');
  await edited.waitFor({ timeout: 30_000 });
  if (!/names both parameters/.test((await edited.textContent()) ?? '')) throw new Error('the card does not show the saved edit');
  await edited.scrollIntoViewIfNeeded();
  await runCommand(page, 'Notifications: Clear All Notifications').catch(() => undefined);
  await page.waitForTimeout(500);
  await page.screenshot({ path: shots.proposed });

  const approving = model.requests.length;
  model.enqueue(...approvedPlanScript());
  await edited.locator('[data-action="approve-plan"]').click();
  await frame.waitForSelector('[data-kind="assistant"]:has-text("Carrying out the approved plan")', { timeout: 90_000 });
  await frame.waitForSelector('.plan-card[data-plan-status="approved"]', { timeout: 30_000 });
  const acting = model.requests[approving];
  if (!acting) throw new Error('approving sent no request');
  const carried = JSON.stringify(acting.body?.messages ?? []);
  if (!carried.includes(JSON.stringify(EDITED).slice(1, -1))) throw new Error('the request after Approve does not carry the edited plan');
  if (!toolsOf(acting).includes('edit_file')) throw new Error('the approved plan runs without the edit tools');
  if (/You are in plan mode/.test(carried)) throw new Error('the approved plan still runs in plan mode');
  await frame.waitForSelector('.plan-mode-line[data-plan-mode="off"]', { state: 'attached', timeout: 30_000 });
  await page.waitForTimeout(500);
  await page.screenshot({ path: shots.approved });
}
