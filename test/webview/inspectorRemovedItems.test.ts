/**
 * A compaction that removed 5,000 items: its history entry shows the true count with the first
 * page of items, asks the host for the rest when the user wants them, and says the count the
 * chat's notice says. An update that does not carry the history keeps what the webview holds.
 */
import { chatCompactionRecord } from '../../src/protocol/chat';
import * as assert from 'assert';
import { mkdirSync } from 'fs';
import * as path from 'path';
import type { Page } from 'playwright-core';
import { InspectorHost } from '../support/inspectorMessages';
import type { CompactionEventRecord, RemovedItem } from '../../src/protocol/records';
import { compactionPreview, compactionView, REMOVED_FIRST, type InspectorState } from '../../src/protocol/inspector';
import { chatState, compaction, inspectorState } from './fixtures';
import { ARTIFACTS, clearPosted, clickWhenSettled, cspViolations, errorsIn, hostSends, posted, usePage } from './harness';

const COUNT = 5_000;
const removedItem = (i: number): RemovedItem => ({
  messageId: `m-${i}`,
  reason: i % 4 === 0 ? 'summarized' : 'archived',
  strategy: i % 4 === 0 ? 'threshold-summarization' : 'tool-result-masking',
  kind: i % 4 === 0 ? 'assistant' : 'tool_result',
  role: i % 4 === 0 ? 'assistant' : 'tool',
  tokens: 180 + (i % 40),
  ...(i % 4 === 0 ? {} : { toolName: 'run_command', offloadRef: `res_${i}` }),
  preview: i % 4 === 0 ? `Ran the test suite again (pass ${i}).` : `> npm test -- --grep "case ${i}"\nPASS test/config.test.ts`,
});
const big: CompactionEventRecord = { ...compaction, id: 'cmp-big', startedAt: compaction.startedAt + 3_600_000, messagesBefore: COUNT + 60, messagesAfter: 61, removed: Array.from({ length: COUNT }, (_, i) => removedItem(i)) };
const bigTokens = big.removed.reduce((sum, r) => sum + r.tokens, 0);
const state: InspectorState = { ...inspectorState, compactions: [compactionView(big), ...inspectorState.compactions] };
const entry = (page: Page) => page.locator('.compaction[data-compaction-id="cmp-big"]');

describe('inspector webview: a compaction of 5,000 removed items (headless Chromium)', function () {
  this.timeout(60_000);
  const pages = usePage('inspector', state);
  let page: Page;
  beforeEach(() => (page = pages.page()));

  it('shows "Removed items (5,000)" with the first 100 and a button that asks the host for the rest, then lists them all', async () => {
    await entry(page).locator('summary').click();
    assert.strictEqual(await entry(page).locator('h4[data-removed-count]').textContent(), `Removed items (5,000) · ${bigTokens.toLocaleString('en-US')} tokens`);
    assert.strictEqual(await entry(page).locator('.removed-item').count(), REMOVED_FIRST);
    assert.match((await entry(page).locator('.removed-more').textContent()) ?? '', /100 of 5,000 items shown/);
    const more = entry(page).locator('[data-action="show-removed"]');
    assert.strictEqual((await more.textContent())?.trim(), 'Show all 5,000 removed items');
    await clearPosted(page);
    await clickWhenSettled(more);
    assert.deepStrictEqual(await posted(page), [{ type: 'showRemoved', compactionId: 'cmp-big', offset: REMOVED_FIRST }]);
    assert.strictEqual((await more.textContent())?.trim(), 'Loading…');
    assert.strictEqual(await more.getAttribute('disabled'), '', 'no second ask while one is on the way');

    // A late answer to another ask is dropped; the one asked for is listed after the first page.
    await hostSends(page, { type: 'removedItems', compactionId: 'cmp-big', offset: 2_000, items: big.removed.slice(2_000, 2_010), total: COUNT });
    assert.strictEqual(await entry(page).locator('.removed-item').count(), REMOVED_FIRST);
    await hostSends(page, { type: 'removedItems', compactionId: 'cmp-big', offset: REMOVED_FIRST, items: big.removed.slice(REMOVED_FIRST), total: COUNT });
    assert.strictEqual(await entry(page).locator('.removed-item').count(), COUNT);
    assert.deepStrictEqual(await entry(page).locator('.removed-item').evaluateAll((els) => [els[0], els[100], els[4_999]].map((e) => e.getAttribute('data-message-id'))), ['m-0', 'm-100', 'm-4999']);
    assert.strictEqual(await entry(page).locator('[data-action="show-removed"]').count(), 0, 'nothing left to ask for');
    assert.strictEqual(await entry(page).locator('h4[data-removed-count]').getAttribute('data-removed-count'), '5000');
  });

  it('lets the user ask again when the host could not answer (the error is shown, the button is not left loading)', async () => {
    await entry(page).locator('summary').click();
    const more = entry(page).locator('[data-action="show-removed"]');
    await clickWhenSettled(more);
    assert.strictEqual((await more.textContent())?.trim(), 'Loading…');
    await hostSends(page, { type: 'error', message: 'That compaction is not in the session shown.' });
    assert.strictEqual((await more.textContent())?.trim(), 'Show all 5,000 removed items');
    assert.strictEqual(await more.getAttribute('disabled'), null);
    await clearPosted(page);
    await clickWhenSettled(more);
    assert.deepStrictEqual(await posted(page), [{ type: 'showRemoved', compactionId: 'cmp-big', offset: REMOVED_FIRST }]);
  });

  it('keeps where the list was scrolled when another entry opens and when the rest of the items arrive', async () => {
    await entry(page).locator('summary').click();
    const list = entry(page).locator('ol.removed');
    await list.evaluate((e) => (e.scrollTop = 1_500));
    const scrolled = await list.evaluate((e) => e.scrollTop);
    assert.ok(scrolled > 1_000, `the list scrolls inside its entry (${scrolled})`);
    await page.locator('.compaction[data-compaction-id="cmp-1"] summary').click(); // redraws the history
    assert.strictEqual(await entry(page).locator('ol.removed').evaluate((e) => e.scrollTop), scrolled);
    await entry(page).locator('[data-action="show-removed"]').click();
    await hostSends(page, { type: 'removedItems', compactionId: 'cmp-big', offset: REMOVED_FIRST, items: big.removed.slice(REMOVED_FIRST), total: COUNT });
    assert.strictEqual(await entry(page).locator('.removed-item').count(), COUNT);
    assert.strictEqual(await entry(page).locator('ol.removed').evaluate((e) => e.scrollTop), scrolled);
  });

  it('says the count the chat notice says for the same compaction', async () => {
    const chat = await pages.harness().open('chat');
    try {
      await hostSends(chat, { type: 'state', state: { ...chatState, entries: [...chatState.entries, { kind: 'compaction', id: big.id, record: chatCompactionRecord(big) }] } });
      const chatCount = Number(await chat.locator(`.compaction-notice[data-entry-id="${big.id}"] [data-removed-count]`).getAttribute('data-removed-count'));
      await entry(page).locator('summary').click();
      const heading = (await entry(page).locator('h4[data-removed-count]').textContent()) ?? '';
      const button = (await entry(page).locator('[data-action="show-removed"]').textContent()) ?? '';
      const shownCounts = [heading, button].map((text) => Number(/([\d,]+) removed items|\(([\d,]+)\)/.exec(text)!.slice(1).find(Boolean)!.replace(/,/g, '')));
      assert.deepStrictEqual([chatCount, ...shownCounts], [COUNT, COUNT, COUNT], `chat ${chatCount}, inspector "${heading}" and "${button}"`);
    } finally {
      await chat.close();
    }
  });

  it('keeps the history and the items asked for when an update does not carry it, and asks for the whole state when it missed one', async () => {
    const updates = new InspectorHost();
    await hostSends(page, updates.message(state, 'whole'));
    await entry(page).locator('summary').click();
    await entry(page).locator('[data-action="show-removed"]').click();
    await hostSends(page, { type: 'removedItems', compactionId: 'cmp-big', offset: REMOVED_FIRST, items: big.removed.slice(REMOVED_FIRST, 300), total: COUNT });
    const next = { ...state, requests: [...state.requests, { ...state.requests[5], requestIndex: 6 }] };
    const update = updates.message(next, { requests: true });
    assert.ok(update.type === 'update' && update.compactions === undefined, 'the history is not sent again');
    await clearPosted(page);
    await hostSends(page, update);
    assert.strictEqual(await page.locator('.turn[data-request-index="6"]').count(), 1, 'the update was taken');
    assert.strictEqual(await entry(page).locator('.removed-item').count(), 300, 'the entry and its items stay');
    assert.deepStrictEqual(await posted(page), []);

    assert.ok((updates.message(next, { compactions: true }) as { compactions?: unknown }).compactions, 'carries the history'); // lost on the way
    const after = updates.message(next, { requests: true });
    assert.equal(after.type === 'update' && after.compactions, undefined);
    await hostSends(page, after);
    assert.deepStrictEqual(await posted(page), [{ type: 'ready' }], 'the webview noticed it missed a history');
  });

  it("the preview's list of what it would remove is paged the same way", async () => {
    const preview = compactionPreview({ ...big, id: 'cmp-preview', summary: undefined });
    await hostSends(page, { type: 'preview', preview });
    const slot = page.locator('.preview-result');
    assert.match((await slot.locator('h4[data-removed-count]').textContent()) ?? '', /^Would remove 5,000 items · /);
    assert.strictEqual(await slot.locator('.removed-item').count(), REMOVED_FIRST);
    await clearPosted(page);
    await slot.locator('[data-action="show-removed"]').click();
    assert.deepStrictEqual(await posted(page), [{ type: 'showRemoved', compactionId: 'cmp-preview', offset: REMOVED_FIRST }]);
    await hostSends(page, { type: 'removedItems', compactionId: 'cmp-preview', offset: REMOVED_FIRST, items: big.removed.slice(REMOVED_FIRST), total: COUNT });
    assert.strictEqual(await slot.locator('.removed-item').count(), COUNT);
  });

  for (const theme of ['dark', 'light'] as const) {
    it(`the entry with its "show all" button reads well in the ${theme} theme (screenshot)`, async () => {
      const themed = await pages.harness().open('inspector', { theme, height: 1000 });
      try {
        await hostSends(themed, { type: 'state', state });
        await entry(themed).locator('summary').click();
        mkdirSync(ARTIFACTS, { recursive: true });
        await entry(themed).screenshot({ path: path.join(ARTIFACTS, `inspector-removed-items-${theme}.png`) });
        // The list scrolls in its entry: the heading and the button are both in reach.
        const [list, heading, more] = await Promise.all(['ol.removed', 'h4[data-removed-count]', '[data-action="show-removed"]'].map((s) => entry(themed).locator(s).boundingBox()));
        assert.ok(list!.height <= 420 && more!.y - heading!.y < 600, `heading at ${heading!.y}, button at ${more!.y}`);
        assert.deepStrictEqual(await cspViolations(themed), []);
        assert.deepStrictEqual(errorsIn(themed), []);
      } finally {
        await themed.close();
      }
    });
  }
});
