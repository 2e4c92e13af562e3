import * as assert from 'assert';
import type { Page } from 'playwright-core';
import { compactionDelta, type CompactionPreviewView } from '../../src/protocol/inspector';
import { inspectorState, preview } from './fixtures';
import { clearPosted, cspViolations, hostSends, posted, usePage } from './harness';

const PROPOSED = 'Goal: make `npm test` pass after the config loader refactor.\nDone: fixed path resolution in src/config/load.ts.';
const EDITED = `${PROPOSED}\nKeep: the snapshot diff in test/config.test.ts is expected; do not update the snapshot.`;
const withSummary: CompactionPreviewView = { ...preview, summary: PROPOSED, estimatedTokensBefore: undefined, estimatedTokensAfter: undefined };
/** What the host answers for the edited text: 21 tokens more than the proposed summary. */
const HOST_AFTER = withSummary.tokensAfter + 21;

const editor = (page: Page) => page.locator('.preview-result vscode-text-area.summary-editor textarea');
const figure = (page: Page) => page.locator('.preview-result [data-preview="tokens"]').textContent();
const saved = (page: Page) => page.locator('.preview-result [data-preview="saved"]').textContent();

/** Waits until the webview has asked the host to count `summary` (it asks once the typing pauses), and returns the ask. */
async function askFor(page: Page, summary: string): Promise<Record<string, unknown>> {
  await page.waitForFunction((text) => (window as unknown as { __posted: Array<{ type: string; summary?: string }> }).__posted.some((m) => m.type === 'countPreviewSummary' && m.summary === text), summary);
  return (await posted(page)).filter((m) => m.type === 'countPreviewSummary').pop()!;
}

describe("inspector webview: the compaction preview's figure follows the edited summary (headless Chromium, host CSP)", function () {
  this.timeout(60_000);
  const ui = usePage('inspector', inspectorState);

  it("asks the host to count the edited summary and shows the host's figure, keeping the editor as it is", async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    assert.strictEqual(await figure(page), compactionDelta(withSummary));
    await clearPosted(page);
    // The page's clock stands still while the user types: one ask once the typing pauses, not one per key.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 60_000);
    await editor(page).click();
    await editor(page).press('End');
    await editor(page).pressSequentially('\nKeep: the snapshot diff in test/config.test.ts is expected; do not update the snapshot.');
    assert.strictEqual(await editor(page).inputValue(), EDITED);
    assert.deepStrictEqual(await posted(page), [], 'nothing is asked while the user types');
    await page.clock.runFor(1_000);
    assert.deepStrictEqual(await posted(page), [{ type: 'countPreviewSummary', previewId: withSummary.id, summary: EDITED }]);
    await page.clock.resume();
    assert.strictEqual(await figure(page), compactionDelta(withSummary), 'the webview never counts: the figure waits for the host');

    await hostSends(page, { type: 'previewFigures', previewId: withSummary.id, summary: EDITED, tokensAfter: HOST_AFTER, estimatedTokensAfter: HOST_AFTER - 100 });
    assert.strictEqual(await figure(page), compactionDelta({ ...withSummary, tokensAfter: HOST_AFTER, estimatedTokensAfter: HOST_AFTER - 100 }));
    assert.match((await figure(page)) ?? '', new RegExp(HOST_AFTER.toLocaleString('en-US')));
    assert.match((await saved(page)) ?? '', new RegExp(`saves ${(withSummary.tokensBefore - HOST_AFTER).toLocaleString('en-US')}`));
    assert.strictEqual(await editor(page).evaluate((e) => e === document.activeElement || (e.getRootNode() as Document | ShadowRoot).activeElement === e), true, 'the user keeps typing where they were');
    // A later render (a state push) keeps the host's figure.
    await hostSends(page, { type: 'state', state: inspectorState });
    assert.match((await figure(page)) ?? '', new RegExp(HOST_AFTER.toLocaleString('en-US')));
    assert.deepStrictEqual(await cspViolations(page), []);
  });

  it('ignores an answer for text the user has changed since, or for another preview', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    await editor(page).fill(EDITED);
    await askFor(page, EDITED);
    const before = await figure(page);
    await hostSends(page, { type: 'previewFigures', previewId: withSummary.id, summary: `${EDITED} (older)`, tokensAfter: 1, estimatedTokensAfter: 1 });
    await hostSends(page, { type: 'previewFigures', previewId: 'cmp-other', summary: EDITED, tokensAfter: 2, estimatedTokensAfter: 2 });
    assert.strictEqual(await figure(page), before);
  });

  it('Restore asks for the proposed summary to be counted again; Confirm stops a pending ask', async () => {
    const page = ui.page();
    await hostSends(page, { type: 'preview', preview: withSummary });
    await editor(page).fill(EDITED);
    await askFor(page, EDITED);
    await page.locator('.preview-result vscode-button[data-action="restore-summary"]').click();
    assert.deepStrictEqual(await askFor(page, PROPOSED), { type: 'countPreviewSummary', previewId: withSummary.id, summary: PROPOSED });
    await clearPosted(page);
    // The page's clock stands still from here: what the webview sends depends on the typing alone.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 60_000);
    await editor(page).fill(`${PROPOSED} More.`);
    await page.click('.preview-result vscode-button[data-action="confirm"]');
    await page.clock.runFor(5_000);
    // The confirm is the last word: the ask that waited for the typing to pause is not sent after it.
    assert.deepStrictEqual((await posted(page)).map((m) => m.type), ['confirmCompaction']);
  });
});
