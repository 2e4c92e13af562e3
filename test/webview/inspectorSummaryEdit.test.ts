import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import type { CompactionEventRecord } from '../../src/protocol/records';
import { compactionView } from '../../src/protocol/inspector';
import { compaction, inspectorState, preview } from './fixtures';
import { clearPosted, cspViolations, errorsIn, hostSends, posted, usePage } from './harness';

const SCREENSHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');
const PROPOSED = 'Goal: make `npm test` pass after the config loader refactor.\nDone: fixed path resolution in src/config/load.ts.';
const EDITED = 'Goal: make `npm test` pass after the config loader refactor.\nDone: fixed path resolution in src/config/load.ts.\nKeep: the snapshot diff in test/config.test.ts is expected; do not update the snapshot.';
const withSummary = { ...preview, summary: PROPOSED };
const edited: CompactionEventRecord = { ...compaction, id: 'cmp-2', trigger: 'manual', startedAt: compaction.startedAt + 60_000, summary: EDITED, originalSummary: PROPOSED };

const editor = (page: Page) => page.locator('.preview-result vscode-text-area.summary-editor textarea');
/** What the webview posted, without its asks to count the summary being edited (previewSummaryFigure.test.ts covers those). */
const intents = async (page: Page) => (await posted(page)).filter((m) => m.type !== 'countPreviewSummary');
const confirmDisabled = (page: Page) => page.locator('.preview-result vscode-button[data-action="confirm"]').getAttribute('disabled');

describe('inspector webview: editing the summary in the compaction preview', function () {
  this.timeout(60_000);
  const ui = usePage('inspector', inspectorState);

  it('shows the proposed summary in an editor, keeps the edit across updates, and Confirm sends the edited text', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    assert.strictEqual(await editor(page).inputValue(), PROPOSED);
    await editor(page).fill(EDITED);
    // The host pushes a state that does not change the context (same requests): the edit stays.
    await hostSends(page, { type: 'state', state: { ...inspectorState } });
    assert.strictEqual(await editor(page).inputValue(), EDITED, 'a re-render keeps what the user wrote');
    await page.click('.preview-result vscode-button[data-action="confirm"]');
    assert.deepStrictEqual(await intents(page), [{ type: 'confirmCompaction', focus: 'keep the snapshot diff', summary: EDITED }]);
    assert.strictEqual(await page.locator('.preview-result').count(), 0, 'the preview closes');
  });

  it('sends the summary as shown when the user confirms it untouched', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: { ...withSummary, focus: undefined } });
    await page.click('.preview-result vscode-button[data-action="confirm"]');
    assert.deepStrictEqual(await intents(page), [{ type: 'confirmCompaction', summary: PROPOSED }]);
  });

  it('holds Confirm while the summary is blank, and again once it says something', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    assert.strictEqual(await confirmDisabled(page), null);
    await editor(page).fill('   ');
    assert.strictEqual(await confirmDisabled(page), '', 'a blank summary cannot replace the history');
    await page.click('.preview-result vscode-button[data-action="confirm"]', { force: true });
    assert.deepStrictEqual(await intents(page), [], 'nothing was sent');
    await editor(page).fill('Keep the snapshot diff.');
    assert.strictEqual(await confirmDisabled(page), null);
  });

  it('holds Confirm on an edited summary once the preview is out of date', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    await editor(page).fill(EDITED);
    const latest = inspectorState.requests[inspectorState.requests.length - 1];
    await hostSends(page, { type: 'state', state: { ...inspectorState, requests: [...inspectorState.requests, { ...latest, requestIndex: latest.requestIndex + 1 }] } });
    assert.strictEqual(await page.locator('.preview-result').getAttribute('data-stale'), 'true');
    assert.strictEqual(await confirmDisabled(page), '');
    await editor(page).fill(`${EDITED} More.`);
    assert.strictEqual(await confirmDisabled(page), '', 'typing does not release a stale Confirm');
  });

  it('says the summary was changed, and Restore puts the proposed one back', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    const note = page.locator('.preview-result [data-preview="summary-edited"]');
    assert.strictEqual(await note.isVisible(), false, 'no note on the proposed summary');
    await editor(page).fill(EDITED);
    assert.strictEqual(await note.isVisible(), true);
    await note.locator('vscode-button[data-action="restore-summary"]').click();
    assert.strictEqual(await editor(page).inputValue(), PROPOSED);
    assert.strictEqual(await note.isVisible(), false);
    await page.click('.preview-result vscode-button[data-action="confirm"]');
    assert.deepStrictEqual(await intents(page), [{ type: 'confirmCompaction', focus: 'keep the snapshot diff', summary: PROPOSED }]);
  });

  it('keeps the user\'s edit when an out-of-date preview is refreshed', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    await editor(page).fill(EDITED);
    const latest = inspectorState.requests[inspectorState.requests.length - 1];
    const next = { ...inspectorState, requests: [...inspectorState.requests, { ...latest, requestIndex: latest.requestIndex + 1 }] };
    await hostSends(page, { type: 'state', state: next });
    await page.click('.preview-result vscode-button[data-action="refresh-preview"]');
    await hostSends(page, { type: 'preview', preview: { ...withSummary, summary: `${PROPOSED}\nNext: the snapshot tests.` } });
    assert.strictEqual(await page.locator('.preview-result').getAttribute('data-stale'), 'false');
    assert.strictEqual(await editor(page).inputValue(), EDITED, 'the edit was not thrown away');
    assert.strictEqual(await page.locator('.preview-result [data-preview="summary-edited"]').isVisible(), true);
    await clearPosted(page);
    await page.click('.preview-result vscode-button[data-action="confirm"]');
    assert.deepStrictEqual(await intents(page), [{ type: 'confirmCompaction', focus: 'keep the snapshot diff', summary: EDITED }]);
  });

  it('has no editor when the compaction would write no summary', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview });
    assert.strictEqual(await page.locator('.preview-result vscode-text-area').count(), 0);
    await page.click('.preview-result vscode-button[data-action="confirm"]');
    assert.deepStrictEqual(await intents(page), [{ type: 'confirmCompaction', focus: 'keep the snapshot diff' }]);
  });

  it('marks an edited summary "edited by you" in the history and shows the original on expand', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'state', state: { ...inspectorState, compactions: [compactionView(compaction), compactionView(edited)] } });
    const entry = page.locator('.compaction[data-compaction-id="cmp-2"]');
    assert.match((await entry.locator('summary').first().textContent()) ?? '', /summary edited by you/);
    const untouched = page.locator('.compaction[data-compaction-id="cmp-1"]');
    assert.doesNotMatch((await untouched.textContent()) ?? '', /edited by you/, 'a summary nobody edited is not marked');
    await entry.locator('summary').first().click();
    assert.strictEqual(await entry.locator('.summary > pre.summary-text').textContent(), EDITED, 'the summary shown is the one in use');
    assert.match((await entry.locator('[data-summary="edited"]').textContent()) ?? '', /edited by you/);
    const original = entry.locator('details.original-summary');
    assert.strictEqual(await original.evaluate((e) => (e as HTMLDetailsElement).open), false, 'the original is folded');
    await original.locator('summary').click();
    assert.strictEqual(await original.locator('[data-summary="original"]').textContent(), PROPOSED);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders the editable summary and the history mark in the ${theme} theme (screenshot)`, async () => {
      const themed = await ui.harness().open('inspector', { theme, height: 1800 });
      try {
        await hostSends(themed, { type: 'state', state: { ...inspectorState, compactions: [compactionView(compaction), compactionView(edited)] } });
        await clearPosted(themed);
        const entry = themed.locator('.compaction[data-compaction-id="cmp-2"]');
        await entry.locator('summary').first().click();
        await entry.locator('details.original-summary summary').click();
        await hostSends(themed, { type: 'preview', preview: withSummary });
        await editor(themed).fill(EDITED);
        mkdirSync(SCREENSHOTS, { recursive: true });
        await themed.locator('.compactions').screenshot({ path: path.join(SCREENSHOTS, `summary-edit-history-${theme}.png`) });
        await themed.locator('.preview-result').screenshot({ path: path.join(SCREENSHOTS, `summary-edit-preview-${theme}.png`) });
        assert.deepStrictEqual(await cspViolations(themed), []);
        assert.deepStrictEqual(errorsIn(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
