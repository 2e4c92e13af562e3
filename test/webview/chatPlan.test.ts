import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { ChatEntry, ChatPlanView, ChatState } from '../../src/protocol/chat';
import { textContrast } from './contrast';
import { chatState } from './fixtures';
import { ARTIFACTS, hostSends, posted, usePage } from './harness';

const PLAN = '1. Read `src/parser.ts` and its tests.\n2. Fix the off-by-one in `tokenize()`.\n3. Add a test for an input ending in a comma, then run `npm test`.';
const EDITED = '1. Read `src/parser.ts` and its tests.\n2. Fix the off-by-one in `tokenize()`.\n3. Run only the parser tests.';
const ask: ChatEntry = { kind: 'user', id: 'u1', text: 'Plan a fix for the parser dropping its last token.' };
const answer = (plan: ChatPlanView): ChatEntry => ({ kind: 'assistant', id: 'a1', text: PLAN, toolCalls: [], plan });
const stateWith = (plan: ChatPlanView, planMode = true): ChatState => ({ ...chatState, busy: false, planMode, entries: [ask, answer(plan)] });
const intents = async (page: Page) => (await posted(page)).filter((m) => m.type !== 'draft' && m.type !== 'ready');
const card = (page: Page) => page.locator('[data-entry-id="a1"] .plan-card');
const editor = (page: Page) => page.locator('.plan-card vscode-text-area.plan-editor textarea');

describe('chat webview: plan mode and the plan card (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = usePage('chat', stateWith({ status: 'proposed', text: PLAN }), { width: 460, height: 760 });
  let page: Page;
  beforeEach(() => {
    page = pages.page();
  });

  it('says plainly which mode the next message runs in, and the switch asks the host to change it', async () => {
    const toggle = page.locator('vscode-button[data-action="plan-mode"]');
    assert.strictEqual((await toggle.textContent())?.trim(), 'Plan mode: on');
    assert.strictEqual(await toggle.getAttribute('aria-pressed'), 'true');
    assert.match((await page.locator('.plan-mode-line').textContent()) ?? '', /Plan mode is on: the agent only reads and searches, then proposes a plan/);
    await toggle.click();
    assert.deepStrictEqual(await intents(page), [{ type: 'setPlanMode', on: false }]);
    // The host is the source of truth: nothing changes until it says so.
    assert.strictEqual((await toggle.textContent())?.trim(), 'Plan mode: on');
    await hostSends(page, { type: 'state', state: stateWith({ status: 'proposed', text: PLAN }, false) });
    assert.strictEqual((await toggle.textContent())?.trim(), 'Plan mode: off');
    assert.strictEqual(await page.locator('.plan-mode-line').isVisible(), false);
    // A replay takes no messages, so it offers no mode.
    await hostSends(page, { type: 'state', state: { ...stateWith({ status: 'passed', text: PLAN }, false), replay: true } });
    assert.strictEqual(await toggle.isVisible(), false);
  });

  it('shows the plan once, as the card, with Approve, Edit and Discard', async () => {
    assert.strictEqual(await card(page).count(), 1);
    assert.strictEqual(await page.locator('[data-entry-id="a1"] .entry-body').count(), 0, 'the answer is not drawn a second time above its card');
    assert.match((await card(page).locator('.plan-body').textContent()) ?? '', /Fix the off-by-one in tokenize\(\)/);
    assert.deepStrictEqual(await card(page).locator('vscode-button').evaluateAll((els) => els.map((e) => e.getAttribute('data-action'))), ['approve-plan', 'edit-plan', 'discard-plan']);
    await card(page).locator('[data-action="approve-plan"]').click();
    await card(page).locator('[data-action="discard-plan"]').click();
    assert.deepStrictEqual(await intents(page), [{ type: 'approvePlan', messageId: 'a1' }, { type: 'discardPlan', messageId: 'a1' }]);
  });

  it('edits the plan in place: Save sends the edit, Approve while editing sends the text as edited, Cancel keeps the plan as it was', async () => {
    await card(page).locator('[data-action="edit-plan"]').click();
    assert.strictEqual(await editor(page).inputValue(), PLAN, 'the editor opens on the plan');
    await editor(page).fill(EDITED);
    await card(page).locator('[data-action="save-plan"]').click();
    assert.deepStrictEqual(await intents(page), [{ type: 'editPlan', messageId: 'a1', text: EDITED }]);

    await hostSends(page, { type: 'update', patch: { keep: 2, tail: [], upserts: [answer({ status: 'proposed', text: EDITED, edited: true })] } });
    assert.match((await card(page).locator('.plan-body').textContent()) ?? '', /Run only the parser tests/);
    assert.strictEqual((await card(page).locator('.plan-edited').textContent())?.trim(), 'edited');

    await card(page).locator('[data-action="edit-plan"]').click();
    await editor(page).fill(`${EDITED}\n4. Commit.`);
    await card(page).locator('[data-action="cancel-plan-edit"]').click();
    assert.match((await card(page).locator('.plan-body').textContent()) ?? '', /Run only the parser tests/);
    assert.doesNotMatch((await card(page).locator('.plan-body').textContent()) ?? '', /Commit/);

    await card(page).locator('[data-action="edit-plan"]').click();
    await editor(page).fill(`${EDITED}\n4. Commit.`);
    await card(page).locator('[data-action="approve-plan"]').click();
    assert.deepStrictEqual((await intents(page)).at(-1), { type: 'approvePlan', messageId: 'a1', text: `${EDITED}\n4. Commit.` });
  });

  it('an edit in progress survives the card being drawn again', async () => {
    await card(page).locator('[data-action="edit-plan"]').click();
    await editor(page).fill('1. Only this step.');
    await hostSends(page, { type: 'state', state: { ...stateWith({ status: 'proposed', text: PLAN }), sessionTitle: 'Renamed' } });
    assert.strictEqual(await editor(page).inputValue(), '1. Only this step.');
  });

  for (const [status, words] of [['approved', /Approved/], ['discarded', /Discarded/], ['passed', /Not acted on/]] as const) {
    it(`a plan ${status} says so and offers nothing to press`, async () => {
      await hostSends(page, { type: 'state', state: stateWith({ status, text: EDITED, edited: true }, false) });
      assert.match((await card(page).locator('.plan-status').textContent()) ?? '', words);
      assert.strictEqual(await card(page).locator('vscode-button').count(), 0);
    });
  }

  for (const theme of ['dark', 'light', 'high-contrast'] as const) {
    it(`reads well in the ${theme} theme: the plan, its status and the plan-mode line (screenshot)`, async () => {
      const themed = await pages.harness().open('chat', { theme, width: 460, height: 620 });
      try {
        await hostSends(themed, { type: 'state', state: stateWith({ status: 'proposed', text: EDITED, edited: true }) });
        for (const selector of ['.plan-card .plan-body li', '.plan-card .plan-status', '.plan-card .plan-title', '.plan-mode-line']) {
          const ratio = await textContrast(themed.locator(selector).first());
          assert.ok(ratio >= 4.5, `${selector} has a contrast of ${ratio.toFixed(2)}:1 in the ${theme} theme`);
        }
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `plan-card-${theme}.png`), fullPage: true });
        await themed.locator('.plan-card [data-action="edit-plan"]').click();
        await themed.screenshot({ path: path.join(ARTIFACTS, `plan-card-editing-${theme}.png`), fullPage: true });
        await hostSends(themed, { type: 'state', state: stateWith({ status: 'approved', text: EDITED, edited: true }, false) });
        const approved = await textContrast(themed.locator('.plan-card .plan-status'));
        assert.ok(approved >= 4.5, `the approved status has a contrast of ${approved.toFixed(2)}:1 in the ${theme} theme`);
      } finally {
        await themed.close();
      }
    });
  }
});
