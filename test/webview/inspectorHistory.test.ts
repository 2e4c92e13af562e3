import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { compaction, inspectorState, preview, turnCacheMiss, requestItems } from './fixtures';
import { compactionView } from '../../src/protocol/inspectorCompactions';
import { ARTIFACTS, clearPosted, clickWhenSettled, cspViolations, hostSends, posted, usePage } from './harness';

describe('inspector webview: compactions, a reload and long sessions (headless Chromium, host CSP)', function () {
  this.timeout(60_000);
  const pages = usePage('inspector', inspectorState, { clearPosted: false });
  let page: Page;
  beforeEach(() => (page = pages.page()));

  it('shows the compaction history newest first, expandable to summary and removed items', async () => {
    const ids = await page.$$eval('.compaction', (els) => els.map((e) => e.getAttribute('data-compaction-id')));
    assert.deepStrictEqual(ids, ['cmp-1', 'cmp-0']);
    const entry = page.locator('.compaction[data-compaction-id="cmp-1"]');
    assert.match((await entry.locator('summary').textContent()) ?? '', /176,420 → 71,980 tokens.*212 → 64 messages/s);
    assert.match((await entry.locator('summary').textContent()) ?? '', /automatic/);
    await entry.locator('summary').click();
    assert.match((await entry.locator('.summary-text').textContent()) ?? '', /snapshot tests/);
    assert.strictEqual(await entry.locator('.removed-item').count(), compaction.removed.length);
    assert.match((await entry.locator('.removed-item[data-reason="tool_summarized"]').textContent()) ?? '', /tool call summarized.*9,400 tok/s);
    // The open state survives a state push.
    await hostSends(page, { type: 'state', state: inspectorState });
    assert.strictEqual(await page.locator('.compaction[data-compaction-id="cmp-1"]').evaluate((e) => (e as HTMLDetailsElement).open), true);
  });

  it('marks the run after which automatic compaction stopped, with why and what was left', async () => {
    const stopped = { ...compaction, id: 'cmp-stop', startedAt: compaction.startedAt + 60_000, tokensBefore: 176_000, tokensAfter: 175_100, autoStopped: { freedTokens: 900, leastTokens: 9_200, runs: 2, resumeAtTokens: 184_300, left: { pinned: 61_000, latestTurn: 48_200, system: 3_100, tools: 9_800 } } };
    await hostSends(page, { type: 'state', state: { ...inspectorState, compactions: [compactionView(stopped), ...inspectorState.compactions] } });
    const entry = page.locator('.compaction[data-compaction-id="cmp-stop"]');
    assert.match((await entry.locator('summary').textContent()) ?? '', /automatic compaction stopped/);
    await entry.locator('summary').click();
    assert.strictEqual(await entry.locator('[data-field="auto-stopped"]').textContent(), 'stopped: 2 runs in a row freed less than 9,200 tokens each (this one 900). Left: pinned items 61,000, the latest turn 48,200, system prompt 3,100, tools 9,800. Starts again at 184,300 tokens, or when you compact by hand.');
    await hostSends(page, { type: 'state', state: inspectorState });
  });

  it('expanding an offloaded result posts loadBlob and pages the content in', async () => {
    await clearPosted(page);
    const blob = page.locator('.blob[data-ref-id="res_a1"]');
    // Named by the tool, what it ran and the request; the opaque ref id is only in the details.
    const summary = (await blob.locator('summary').textContent()) ?? '';
    assert.match(summary, /run_command npm test · request #3.*47\.1 KB.*1,204 lines/s);
    assert.doesNotMatch(summary, /res_a1/);
    await blob.locator('summary').click();
    await page.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0);
    assert.deepStrictEqual(await posted(page), [{ type: 'loadBlob', refId: 'res_a1', offset: 0 }]);
    await hostSends(page, { type: 'blobPage', refId: 'res_a1', offset: 0, text: 'PASS a\nFAIL <b>b</b>\n', totalBytes: 48_213, nextOffset: 16_384 });
    assert.strictEqual(await blob.locator('pre.blob-text').textContent(), 'PASS a\nFAIL <b>b</b>\n');
    assert.strictEqual(await blob.locator('pre.blob-text b').count(), 0, 'content is text, never markup');
    await clearPosted(page);
    await blob.locator('vscode-button[data-load-more]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'loadBlob', refId: 'res_a1', offset: 16_384 }]);
    await hostSends(page, { type: 'blobPage', refId: 'res_a1', offset: 16_384, text: 'last page', totalBytes: 48_213 });
    assert.strictEqual(await blob.locator('pre.blob-text').textContent(), 'PASS a\nFAIL <b>b</b>\nlast page');
    assert.strictEqual(await blob.locator('vscode-button[data-load-more]').count(), 0, 'no more pages');
    await clearPosted(page);
    await blob.locator('vscode-button[data-open-blob]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'openBlobInEditor', refId: 'res_a1' }]);
  });

  it('previews a compaction with a focus, then confirms with the same focus', async () => {
    await clearPosted(page);
    await page.fill('vscode-text-field.focus-field input', 'keep the snapshot diff');
    await page.click('vscode-button[data-action="preview"]');
    assert.deepStrictEqual(await posted(page), [{ type: 'previewCompaction', focus: 'keep the snapshot diff' }]);
    await hostSends(page, { type: 'busy', busy: true, label: 'Computing compaction preview…' });
    assert.match((await page.textContent('.status-line')) ?? '', /Computing compaction preview/);
    assert.strictEqual(await page.locator('.status-line vscode-progress-ring').count(), 1);
    await hostSends(page, { type: 'busy', busy: false });
    await hostSends(page, { type: 'preview', preview });
    const result = page.locator('.preview-result');
    assert.match((await result.textContent()) ?? '', /108,200 → 52,300 tokens/);
    assert.match((await result.textContent()) ?? '', /saves 55,900/);
    assert.strictEqual(await result.locator('.removed-item').count(), 2);
    assert.match((await result.locator('.removed-item').first().textContent()) ?? '', /archived.*31,000 tok/s);
    await clearPosted(page);
    await result.locator('vscode-button[data-action="confirm"]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'confirmCompaction', focus: 'keep the snapshot diff' }]);
    assert.strictEqual(await page.locator('.preview-result').count(), 0, 'the preview closes');
  });

  it('marks a preview out of date after a new request, offers Refresh, and holds Confirm until it is fresh', async () => {
    await hostSends(page, { type: 'preview', preview });
    const result = page.locator('.preview-result');
    assert.strictEqual(await result.getAttribute('data-stale'), 'false');
    assert.strictEqual(await result.locator('[data-preview="stale"]').count(), 0);
    // A new turn: the host's next state has one more request.
    const latest = inspectorState.requests[inspectorState.requests.length - 1];
    const next = { ...latest, requestIndex: latest.requestIndex + 1, createdAt: latest.createdAt + 60_000 };
    await hostSends(page, { type: 'state', state: { ...inspectorState, requests: [...inspectorState.requests, next] } });
    assert.strictEqual(await result.getAttribute('data-stale'), 'true');
    assert.match((await result.locator('[data-preview="stale"]').textContent()) ?? '', /Out of date: the context changed after this preview was made/);
    assert.strictEqual(await result.locator('vscode-button[data-action="confirm"]').getAttribute('disabled'), '');
    await clearPosted(page);
    await result.locator('vscode-button[data-action="refresh-preview"]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'previewCompaction', focus: 'keep the snapshot diff' }], 'the same focus again');
    await hostSends(page, { type: 'preview', preview });
    assert.strictEqual(await page.locator('.preview-result').getAttribute('data-stale'), 'false');
    assert.strictEqual(await page.locator('.preview-result vscode-button[data-action="confirm"]').getAttribute('disabled'), null);
    await hostSends(page, { type: 'state', state: inspectorState });
  });

  it('cancelling a preview posts nothing', async () => {
    await page.click('vscode-button[data-action="preview"]');
    assert.deepStrictEqual((await posted(page)).at(-1), { type: 'previewCompaction' }, 'no focus when the field is empty');
    await hostSends(page, { type: 'preview', preview: { ...preview, focus: undefined } });
    await clearPosted(page);
    await page.click('.preview-result vscode-button[data-action="cancel"]');
    assert.deepStrictEqual(await posted(page), []);
    assert.strictEqual(await page.locator('.preview-result').count(), 0);
  });

  it('remembers the selected request and open rows across a reload (setState)', async () => {
    await page.click('.turn[data-request-index="2"]');
    await page.locator('.blob[data-ref-id="res_b2"] summary').click();
    // <details> fires "toggle" in a later task, not during the click: wait for it to be saved.
    await page.waitForFunction(() => ((window as unknown as { __state?: { openBlobs?: string[] } }).__state?.openBlobs ?? []).includes('res_b2'), undefined, { timeout: 5_000 });
    const saved = await page.evaluate(() => (window as unknown as { __state: unknown }).__state);
    assert.deepStrictEqual(saved, { selectedRequest: 2, turnSort: 'position', currentSort: 'position', openCompactions: [], openBlobs: ['res_b2'] });
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`renders readably in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('inspector', { theme, height: 1800 });
      try {
        await hostSends(themed, { type: 'state', state: inspectorState });
        await themed.click('.turn[data-request-index="3"]');
        await hostSends(themed, { type: 'requestItems', requestIndex: 3, items: requestItems, cacheMiss: turnCacheMiss });
        await themed.locator('.compaction[data-compaction-id="cmp-1"] summary').click();
        await themed.locator('.blob[data-ref-id="res_a1"] summary').click();
        await hostSends(themed, { type: 'blobPage', refId: 'res_a1', offset: 0, text: '> jest\nFAIL test/config.test.ts\n  ● loads relative paths\n', totalBytes: 48_213, nextOffset: 16_384 });
        await hostSends(themed, { type: 'preview', preview });
        // Theme variables reach the custom parts: the messages segment uses charts-blue.
        const colour = await themed.$eval('.seg[data-segment="messages"]', (e) => getComputedStyle(e).backgroundColor);
        assert.strictEqual(colour, theme === 'dark' ? 'rgb(55, 148, 255)' : 'rgb(26, 133, 255)');
        mkdirSync(ARTIFACTS, { recursive: true });
        await themed.screenshot({ path: path.join(ARTIFACTS, `inspector-${theme}.png`), fullPage: true });
        await themed.locator('.turn-slot').screenshot({ path: path.join(ARTIFACTS, `inspector-request-${theme}.png`) });
        assert.deepStrictEqual(await cspViolations(themed), []);
      } finally {
        await themed.close();
      }
    });
  }

  it('draws the latest 200 requests of a long session and older ones a page at a time', async () => {
    const template = inspectorState.requests[0];
    const requests = Array.from({ length: 450 }, (_, i) => ({ ...template, requestIndex: i, createdAt: template.createdAt + i, compactionId: undefined }));
    await hostSends(page, { type: 'state', state: { ...inspectorState, requests } });
    const drawn = () => page.$$eval('.timeline [data-request-index]', (els) => els.map((e) => Number(e.getAttribute('data-request-index'))));
    let indexes = await drawn();
    assert.strictEqual(indexes.length, 200);
    assert.deepStrictEqual([indexes[0], indexes[199]], [449, 250], 'the latest first');
    const older = page.locator('vscode-button[data-action="show-older-requests"]');
    assert.match((await older.textContent()) ?? '', /Show 200 older requests \(250 more\)/);
    assert.match((await page.textContent('.timeline-wrap .hint')) ?? '', /450 requests, latest first/);
    await clickWhenSettled(older);
    assert.strictEqual((await drawn()).length, 400);
    assert.match((await older.textContent()) ?? '', /Show 50 older requests$/);
    await clickWhenSettled(older);
    indexes = await drawn();
    assert.strictEqual(indexes.length, 450);
    assert.strictEqual(indexes[449], 0);
    assert.strictEqual(await older.count(), 0, 'nothing older left');
    // Another update keeps what was opened.
    await hostSends(page, { type: 'state', state: { ...inspectorState, requests: [...requests, { ...template, requestIndex: 450, createdAt: template.createdAt + 450, compactionId: undefined }] } });
    assert.strictEqual((await drawn()).length, 451);
  });

  it('lists the latest 100 offloaded results of a long session and earlier ones a page at a time', async () => {
    const template = inspectorState.blobs[0];
    const blobs = Array.from({ length: 130 }, (_, i) => ({ ...template, id: `res_${i}`, createdAt: template.createdAt + i }));
    await hostSends(page, { type: 'state', state: { ...inspectorState, blobs, blobTitles: {} } });
    const listed = () => page.$$eval('details.blob[data-ref-id]', (els) => els.map((e) => e.getAttribute('data-ref-id')));
    let ids = await listed();
    assert.strictEqual(ids.length, 100);
    assert.deepStrictEqual([ids[0], ids[99]], ['res_30', 'res_129'], 'the latest, oldest of them first');
    const earlier = page.locator('vscode-button[data-action="show-earlier-results"]');
    assert.match((await earlier.textContent()) ?? '', /Show 30 earlier results/);
    await clickWhenSettled(earlier);
    ids = await listed();
    assert.strictEqual(ids.length, 130);
    assert.strictEqual(ids[0], 'res_0');
    assert.strictEqual(await earlier.count(), 0);
  });

  it('draws the first 200 items of a long list and more on request, in the order chosen', async () => {
    const template = inspectorState.current[inspectorState.current.length - 1];
    const current = Array.from({ length: 450 }, (_, i) => ({ ...template, messageId: `m${i}`, tokens: 10 + ((i * 37) % 450), badges: [] }));
    await hostSends(page, { type: 'state', state: { ...inspectorState, current } });
    const list = page.locator('[data-list="current"]');
    const rows = () => list.locator('li.item').evaluateAll((els) => els.map((e) => e.getAttribute('data-message-id')));
    assert.strictEqual((await rows()).length, 200);
    assert.match((await list.textContent()) ?? '', /450 items/);
    const more = list.locator('vscode-button[data-action="show-more-items"]');
    assert.match((await more.textContent()) ?? '', /Show 200 more items \(250 not shown\)/);
    await clickWhenSettled(more);
    assert.strictEqual((await rows()).length, 400);
    await clickWhenSettled(list.locator('vscode-button[data-sort="size"]'));
    const bySize = await list.locator('li.item').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-tokens'))));
    assert.strictEqual(bySize.length, 400, 'the rows opened stay open after sorting');
    assert.deepStrictEqual(bySize, [...current.map((i) => i.tokens)].sort((a, b) => b - a).slice(0, 400), 'the largest first');
    await clickWhenSettled(list.locator('vscode-button[data-action="show-more-items"]'));
    assert.strictEqual((await rows()).length, 450);
    assert.strictEqual(await list.locator('vscode-button[data-action="show-more-items"]').count(), 0);
  });
});
